package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/server/broker"
)

func warren(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func script(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunScriptFile(t *testing.T) {
	path := script(t, "declare queue q ttl=5s\npublish q hello\nadvance 6s\nexpect queue q ready=0\n")
	code, out, errOut := warren(t, "", "run", path)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"> declare queue q ttl=5s\n", "> advance 6s\n@5s\nexpired q=q msg=1\n", "> expect queue q ready=0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunFailsOnScriptError(t *testing.T) {
	path := script(t, "declare queue q\nexpect queue q ready=1\n")
	code, out, errOut := warren(t, "", "run", path)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "error: "+path+":2: expectation failed") || !strings.Contains(errOut, "1 error(s)") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

func TestRunSeed(t *testing.T) {
	path := script(t, "declare queue\n")
	_, a, _ := warren(t, "", "run", "--seed=5", path)
	_, b, _ := warren(t, "", "run", "--seed", "5", path)
	_, c, _ := warren(t, "", "run", "--seed=6", path)
	if a != b || a == c {
		t.Errorf("the seed should decide server-chosen names:\n%s%s%s", a, b, c)
	}
}

func TestConsoleSubcommand(t *testing.T) {
	code, out, errOut := warren(t, "publish q x\nquit\n", "console", "--seed=1")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "Warren console") || !strings.Contains(out, "> publish q x\n") {
		t.Errorf("want the banner and an echoed transcript for piped input:\n%s", out)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{nil, 2, "warren console"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run"}, 2, "usage: warren run"},
		{[]string{"console", "--clock=lunar"}, 2, "--clock must be stepped or real"},
		{[]string{"serve", "--clock=lunar"}, 2, `--clock: unknown clock mode "lunar" (use live, paused or manual)`},
		{[]string{"console", "extra"}, 2, "unexpected argument"},
		// RabbitMQ refuses a max_message_size above 512 MiB, and 0 would
		// mean the default, not "nothing": both are usage errors.
		{[]string{"serve", "--max-message-size=0"}, 2, "--max-message-size must be 1..536870912"},
		{[]string{"serve", "--max-message-size=536870913"}, 2, "--max-message-size must be 1..536870912"},
		{[]string{"serve", "--disk-free-limit=lots"}, 2, `--disk-free-limit "lots": want bytes (50000000), a size with a unit`},
		{[]string{"serve", "--disk-free-limit=mem_relative:500"}, 2, "must be a number from 0 to 100"},
		{[]string{"serve", "--disk-free-limit=lots"}, 2, "应为字节数（50000000）、带单位的大小"},
		{[]string{"serve", "--disk-free-limit=mem_relative:500"}, 2, "之后的比例必须是 0 到 100 之间的数"},
		{[]string{"serve", "--memory-monitor-interval=-1s"}, 2, "--memory-monitor-interval must be 0 or more"},
		{[]string{"serve", "--memory-monitor-interval=-1s"}, 2, "内存检查间隔不能为负数"},
	} {
		code, _, errOut := warren(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("warren %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if code, out, _ := warren(t, "", "help"); code != 0 || !strings.Contains(out, "warren run") {
		t.Errorf("warren help: exit %d, %q", code, out)
	}
}

// TestBannerInBothLanguages: warren serve says where it listens in English
// and in Chinese, with every address.
func TestBannerInBothLanguages(t *testing.T) {
	b := banner("127.0.0.1:8080", "127.0.0.1:5672", "/var/lib/warren", broker.ClockLive)
	for _, want := range []string{"Warren is running.", "Clock 时钟:", "live, the wall clock 实时，跟随系统时钟", "Data 数据目录:", "/var/lib/warren", "Warren 已启动。", "Playground 演练场:", "Lessons 课程:", "http://127.0.0.1:8080/playground",
		"amqp://guest:guest@127.0.0.1:5672/", "ws://127.0.0.1:8080/amqp", "管理 API", "http://127.0.0.1:8080/api/overview", "按 Ctrl-C 停止。"} {
		if !strings.Contains(b, want) {
			t.Errorf("the banner lacks %q:\n%s", want, b)
		}
	}
	for mode, want := range map[broker.ClockMode]string{broker.ClockManual: "manual, moves only when told (warren ctl advance 30m, warren ctl step) 手动，仅在收到指令时前进", broker.ClockPaused: "paused, time stands still (POST /api/clock) 已暂停，时间静止"} {
		if b := banner("127.0.0.1:8080", "127.0.0.1:5672", "", mode); !strings.Contains(b, want) {
			t.Errorf("the banner of a %v clock lacks %q:\n%s", mode, want, b)
		}
	}
	if b := banner("127.0.0.1:8080", "127.0.0.1:5672", "", broker.ClockLive); !strings.Contains(b, "in memory only") || !strings.Contains(b, "仅在内存中") {
		t.Errorf("the banner of an in-memory broker does not say so:\n%s", b)
	}
}
