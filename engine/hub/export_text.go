package hub

import "strings"

// The comments of an exported history, in each language a page speaks
// (the site's catalogs are web's, which the hub may not import): one
// template a key, a {name} for each named value, so that word order is
// each language's own. TestExportPhrases checks that both languages have
// every key with the same names.
var exportPhrases = map[string]map[string]string{
	"en": {
		"title":        "Warren: the history of the shared session {name}",
		"titleUnnamed": "Warren: the history of a shared session",
		"exported":     "Exported {at}, after entry {seq}; the session's clock is {mode}.",
		"upTo":         "Up to entry {seq}; the session's clock is {mode}.",
		"open":         "Open this file in Warren's playground (Open a session history), or run it with warren run FILE: it replays the session to the same state, the same state hash.",
		"form":         "Each entry is a comment saying who did what and when (the session's engine time), then history entry with the engine command records it made (base64url), applied exactly; history hash checks the state hash on the way.",
		"broker":       "The session's broker: seed {seed}, engine time 0 at Unix time {epochMs} ms, at most {queues} queues and {messages} messages.",
		"cut":          "The server keeps at most {entries} entries ({bytes} bytes of records) of a session's history: this one starts from the session's state after entry {seq}, and the entries before it are not in it.",
		"participant":  "{name}: {line}",
		"leave":        "{name} left; their connections closed",
		"amqp":         "AMQP connection {connection}",
		"amqpClient":   "AMQP connection {connection} ({client}, {address})",
		"clock":        "the live clock moved",
		"server":       "the server: {line}",
		"serverBare":   "the server",
	},
	"zh-CN": {
		"title":        "Warren：共享会话 {name} 的历史",
		"titleUnnamed": "Warren：一个共享会话的历史",
		"exported":     "导出于 {at}，截至第 {seq} 条日志；会话的时钟为 {mode}。",
		"upTo":         "截至第 {seq} 条日志；会话的时钟为 {mode}。",
		"open":         "在 Warren 的演练场中打开此文件（打开会话历史），或用 warren run FILE 运行它：它把会话重放到同样的状态，即同样的状态哈希。",
		"form":         "每条日志先是一行注释，说明谁在何时（会话的引擎时间）做了什么，然后是 history entry 和它产生的引擎命令记录（base64url），原样应用；history hash 沿途核对状态哈希。",
		"broker":       "会话的代理：种子 {seed}，引擎时间 0 对应 Unix 时间 {epochMs} 毫秒，最多 {queues} 个队列、{messages} 条消息。",
		"cut":          "服务器最多保留一个会话的 {entries} 条日志（{bytes} 字节的命令记录）：这份历史从第 {seq} 条日志之后的会话状态开始，此前的日志不在其中。",
		"participant":  "{name}：{line}",
		"leave":        "{name} 离开了；其连接已关闭",
		"amqp":         "AMQP 连接 {connection}",
		"amqpClient":   "AMQP 连接 {connection}（{client}，{address}）",
		"clock":        "实时时钟走动了",
		"server":       "服务器：{line}",
		"serverBare":   "服务器",
	},
}

// ExportLangs are the languages an exported history's comments come in.
var ExportLangs = []string{"en", "zh-CN"}

// exportPhrase renders key in lang (English for a language it lacks)
// with its named values.
func exportPhrase(lang, key string, nameValues ...string) string {
	phrases, ok := exportPhrases[lang]
	if !ok {
		phrases = exportPhrases["en"]
	}
	t, ok := phrases[key]
	if !ok || len(nameValues)%2 != 0 {
		panic("hub: no export phrase " + key) // programmer error
	}
	if len(nameValues) == 0 {
		return t
	}
	pairs := make([]string, len(nameValues))
	for i := 0; i < len(nameValues); i += 2 {
		pairs[i], pairs[i+1] = "{"+nameValues[i]+"}", nameValues[i+1]
	}
	return strings.NewReplacer(pairs...).Replace(t)
}
