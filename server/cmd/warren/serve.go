package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"warren/driver/addrlimit"
	"warren/driver/conn"
	"warren/driver/sessions"
	"warren/engine"
	"warren/engine/hub"
	"warren/server"
	"warren/server/broker"
	"warren/server/store"
)

// runServe is `warren serve`: the broker on the wall clock, AMQP on TCP,
// and the HTTP listener (WebSocket AMQP at /amqp and /ws/amqp, the
// management API at /api/, the shared sessions at /api/sessions and
// /ws/sessions/). SIGINT or SIGTERM shuts it down gracefully:
// clients get connection.close 320 CONNECTION_FORCED.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	amqpAddr := fs.String("amqp", "127.0.0.1:5672", "address for AMQP 0-9-1 over TCP")
	httpAddr := fs.String("http", "127.0.0.1:8080", "address for HTTP: AMQP over WebSocket at /amqp, the management API at /api/")
	usersFile := fs.String("users", "", "JSON file of users and permissions (RabbitMQ definitions shape); guest/guest exists by default, loopback only")
	seed := fs.Uint64("seed", 0, "seed for server-chosen names (amq.gen-…)")
	maxConns := fs.Int("max-connections", 10000, "most logged-in connections, each counted from its connection.open (RabbitMQ's connection_max); one more gets 530 NOT_ALLOWED. Sockets before login do not count here: see --max-prelogin")
	preLoginPerAddr := fs.Int("max-prelogin-per-address", server.DefaultPreLoginPerAddress, "most AMQP connections (TCP and WebSocket together) one source address (an IPv6 /64) may hold before they have logged in and opened; past it a new socket is reset at once (a WebSocket gets HTTP 429)")
	preLoginTotal := fs.Int("max-prelogin", server.DefaultPreLoginTotal, "most AMQP connections all addresses together may hold before they have logged in and opened; past it a new socket is reset at once (a WebSocket gets HTTP 429)")
	handshakeTimeout := fs.Duration("handshake-timeout", 10*time.Second, "a connection that has not completed connection.open this long after its socket opened is reset, nothing sent, whatever stage it reached (RabbitMQ's handshake_timeout)")
	httpPerAddr := fs.Int("max-http-connections-per-address", server.DefaultHTTPConnsPerAddress, "most HTTP connections one source address may hold (idle keep-alive ones included, which close after 60s; a WebSocket leaves the count once upgraded); past it a new one is reset at once")
	httpTotal := fs.Int("max-http-connections", server.DefaultHTTPConnsTotal, "most HTTP connections all addresses together may hold; past it a new one is reset at once")
	channelMax := fs.Uint("channel-max", 2047, "channel_max proposed in connection.tune; past it channel.open gets 530")
	frameMax := fs.Uint("frame-max", 131072, "frame_max proposed in connection.tune; larger frames get 501 FRAME_ERROR")
	maxMsg := fs.Uint64("max-message-size", 16<<20, "largest message body in bytes, 1..536870912 (512 MiB, RabbitMQ's ceiling); larger ones get 406 PRECONDITION_FAILED. The default is RabbitMQ 4.x's 16 MiB; 134217728 (128 MiB) matches RabbitMQ 3.x")
	maxQueues := fs.Int("max-queues", 0, "most queues per vhost (0: unlimited); past it queue.declare gets 406")
	maxMsgs := fs.Int64("max-messages", 0, "most ready messages per vhost (0: unlimited); past it basic.publish gets 406")
	dataDir := fs.String("data", defaultDataDir(), "directory that keeps the broker's state across restarts (durable exchanges, queues, bindings, policies, vhosts, users, persistent messages); '' keeps everything in memory. A directory damaged other than by a crash's torn tail is refused, unchanged: see warren store check/repair")
	diskFree := fs.String("disk-free-limit", server.DefaultDiskFreeLimit, "free space below which, on the data directory's file system, publishers are blocked (connection.blocked \"low on disk\") until it is back: bytes (50000000), a size with RabbitMQ's units (50MB, 1GB, 512MiB) or mem_relative:RATIO, a multiple of the machine's memory; 0 turns the disk alarm off (RabbitMQ's disk_free_limit, default 50MB)")
	snapshotAfter := fs.Int64("snapshot-after", 64<<20, "bytes of command log after which the state is saved as a snapshot that replaces the log (a restart replays the log since the last snapshot)")
	clockFlag := fs.String("clock", "live", "the broker's clock: live (the wall clock), paused (stands still) or manual (moves only when told: POST /api/clock, warren ctl advance/step); the flag decides at every start, the data directory does not keep it")
	watermark := fs.Int64("memory-high-watermark", server.DefaultMemoryHighWatermark(), "bytes of messages held (ready, unacknowledged, delayed) past which publishers are blocked (connection.blocked); default 40% of RAM")
	memoryInterval := fs.Duration("memory-monitor-interval", conn.DefaultMemoryMonitorInterval, "how often a set memory alarm looks whether memory is back under the watermark, and clears if so (RabbitMQ's memory_monitor_interval, 2.5s): publishers blocked stay blocked at least this long, so a flood at the watermark is not blocked and released after every batch; 0 clears it as soon as memory is under")
	maxSessions := fs.Int("max-sessions", sessions.DefaultMaxSessions, "most shared sessions at once; past it POST /api/sessions gets 429")
	sessionPerHost := fs.Int("session-max-per-host", sessions.DefaultMaxPerAddr, "most shared sessions one source address runs at once, so that one address cannot take all of --max-sessions; past it POST /api/sessions gets 429 (addrSessions)")
	sessionCreates := fs.Int("session-creates-per-minute", sessions.DefaultCreatesPerMinute, "most shared sessions one source address creates a minute; past it POST /api/sessions gets 429 (addrCreateRate)")
	sessionParticipants := fs.Int("session-max-participants", hub.DefaultMaxParticipants, "most pages in one shared session; past it a join gets the sessionFull error")
	sessionRate := fs.Int("session-rate", hub.DefaultSessionRate, "commands a second one shared session takes from all its pages together (bursts of twice as many); past it a command gets sessionRateLimited")
	sessionQueues := fs.Int("session-max-queues", hub.DefaultMaxQueues, "most queues in one shared session's broker; past it queue.declare gets 406")
	sessionMsgs := fs.Int64("session-max-messages", hub.DefaultMaxMessages, "most ready messages in one shared session's broker; past it basic.publish gets 406")
	sessionBytes := fs.Int64("session-max-bytes", hub.DefaultMaxBytes, "bytes of messages one shared session's queues may hold; at it publishes get sessionBytes")
	sessionIdle := fs.Duration("session-idle", time.Duration(hub.DefaultIdleMs)*time.Millisecond, "a shared session with no command or join for this long ends, its pages told")
	historyEntries := fs.Int("session-history-entries", hub.DefaultHistoryEntries, "entries of a shared session's log kept for its history export (GET /api/sessions/{id}/history); past it the history starts again from a later state of the session, and says from which entry")
	historyBytes := fs.Int64("session-history-bytes", hub.DefaultHistoryBytes, "bytes of engine command records a shared session's history keeps; past it the history starts again from a later state of the session, and says from which entry")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *historyEntries < 1 || *historyBytes < 1 || *maxSessions < 1 || *sessionPerHost < 1 || *sessionCreates < 1 || *sessionParticipants < 1 || *sessionRate < 1 || *sessionQueues < 1 || *sessionMsgs < 1 || *sessionBytes < 1 || *sessionIdle < time.Millisecond {
		fmt.Fprintln(stderr, "warren serve: the --max-sessions and --session-* limits must be above 0 (--session-idle at least 1ms)")
		return 2
	}
	if *preLoginPerAddr < 1 || *preLoginTotal < 1 || *httpPerAddr < 1 || *httpTotal < 1 || *handshakeTimeout < time.Millisecond {
		fmt.Fprintln(stderr, "warren serve: --max-prelogin*, --max-http-connections* must be above 0 and --handshake-timeout at least 1ms")
		return 2
	}
	if *channelMax == 0 || *channelMax > 65535 || *frameMax < 4096 || *frameMax > 1<<31 {
		fmt.Fprintln(stderr, "warren serve: --channel-max must be 1..65535 and --frame-max 4096..2147483648")
		return 2
	}
	if *maxMsg < 1 || *maxMsg > maxMessageSizeCeiling {
		fmt.Fprintf(stderr, "warren serve: --max-message-size must be 1..%d bytes (512 MiB, RabbitMQ's ceiling) 消息大小上限必须在 1 到 %[1]d 字节之间\n", maxMessageSizeCeiling)
		return 2
	}
	if *memoryInterval < 0 {
		fmt.Fprintln(stderr, "warren serve: --memory-monitor-interval must be 0 or more (0: the memory alarm clears as soon as memory is under the watermark) 内存检查间隔不能为负数（0 表示内存一回到水位线以下告警就解除）")
		return 2
	}
	diskFreeLimit, err := server.ParseDiskFreeLimit(*diskFree, server.TotalMemory())
	if err != nil {
		fmt.Fprintf(stderr, "warren serve: %v\n", err)
		return 2
	}
	clock, err := broker.ParseClockMode(*clockFlag)
	if err != nil {
		fmt.Fprintf(stderr, "warren serve: --clock: %v\n", err)
		return 2
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "warren serve: "+format+"\n", args...) }
	oversubscribeProcs()
	srv, err := server.Start(server.Options{AMQPAddr: *amqpAddr, HTTPAddr: *httpAddr, UsersFile: *usersFile, DataDir: *dataDir, Clock: clock, Log: logf, Store: store.Options{SnapshotLogBytes: *snapshotAfter, MaxRecordBytes: recordLimit(*maxMsg), DiskFreeLimit: diskFreeLimit},
		Engine:    engine.Config{Seed: *seed, MaxQueuesPerVhost: *maxQueues, MaxMessagesPerVhost: *maxMsgs},
		PreLogin:  addrlimit.Limits{PerAddress: *preLoginPerAddr, Total: *preLoginTotal},
		HTTPConns: addrlimit.Limits{PerAddress: *httpPerAddr, Total: *httpTotal},
		Conn: conn.Config{MaxConnections: *maxConns, HandshakeTimeout: *handshakeTimeout, ChannelMax: uint16(*channelMax), FrameMax: uint32(*frameMax), MaxMessageSize: *maxMsg,
			Alarm: &conn.Alarm{HighWatermark: *watermark, MonitorInterval: monitorInterval(*memoryInterval)}},
		Sessions: sessions.Config{MaxSessions: *maxSessions, MaxPerAddr: *sessionPerHost, CreatesPerMinute: *sessionCreates, History: hub.HistoryLimits{MaxEntries: *historyEntries, MaxBytes: *historyBytes}, Hub: hub.Config{
			Engine:          engine.Config{MaxQueuesPerVhost: *sessionQueues, MaxMessagesPerVhost: *sessionMsgs},
			MaxParticipants: *sessionParticipants, SessionRate: *sessionRate, SessionBurst: 2 * *sessionRate,
			MaxBytes: *sessionBytes, IdleMs: sessionIdle.Milliseconds()}}})
	if err != nil {
		fmt.Fprintf(stderr, "warren serve: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, banner(srv.HTTPAddr(), srv.AMQPAddr(), *dataDir, clock))
	stopTrace := traceOnSignal(stderr)
	defer stopTrace()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	fmt.Fprintln(stdout, "shutting down 正在关闭")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "warren serve: %v\n", err)
		return 1
	}
	return 0
}

// banner says where the server listens and what moves its clock, in
// English and in Simplified Chinese (most of Warren's users read Chinese
// first).
func banner(httpAddr, amqpAddr, dataDir string, clock broker.ClockMode) string {
	data := "in memory only, gone when it stops 仅在内存中，停止即丢失"
	if dataDir != "" {
		data = dataDir
	}
	clockLine := "live, the wall clock 实时，跟随系统时钟"
	switch clock {
	case broker.ClockPaused:
		clockLine = "paused, time stands still (POST /api/clock) 已暂停，时间静止（POST /api/clock）"
	case broker.ClockManual:
		clockLine = "manual, moves only when told (warren ctl advance 30m, warren ctl step) 手动，仅在收到指令时前进（warren ctl advance 30m、warren ctl step）"
	}
	return fmt.Sprintf(`Warren is running. Warren 已启动。
  Data 数据目录:                           %[3]s
  Clock 时钟:                              %[4]s
  Playground 演练场:                       http://%[1]s/playground
  Lessons 课程:                            http://%[1]s/lessons
  AMQP 0-9-1:                              amqp://guest:guest@%[2]s/
  AMQP over WebSocket 基于 WebSocket 的 AMQP: ws://%[1]s/amqp
  Management API 管理 API:                 http://%[1]s/api/overview (guest/guest)
Press Ctrl-C to stop. 按 Ctrl-C 停止。
`, httpAddr, amqpAddr, data, clockLine)
}

// defaultDataDir is where `warren serve` keeps its state unless told
// otherwise: $XDG_STATE_HOME/warren, else ~/.local/state/warren (the XDG
// base directory for state that should survive a restart), else
// ./warren-data when there is no home directory.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "warren")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "warren")
	}
	return "warren-data"
}

// maxMessageSizeCeiling is the largest --max-message-size: RabbitMQ refuses
// a max_message_size above 512 MiB.
const maxMessageSizeCeiling = 512 << 20

// recordLimit is the largest command record the data directory accepts:
// room for the largest message a client may publish, with its properties
// and headers, and never less than the store's default.
func recordLimit(maxMessage uint64) int {
	return int(max(256<<20, 2*maxMessage+1<<20))
}

// monitorInterval is the memory alarm's MonitorInterval for the
// --memory-monitor-interval flag, whose 0 clears the alarm at once.
func monitorInterval(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
