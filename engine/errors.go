package engine

import "fmt"

// AMQP reply codes used by the engine, with RabbitMQ's names.
const (
	ReplySuccess       = 200
	ConnectionForced   = 320
	NoRoute            = 312
	NoConsumers        = 313
	AccessRefused      = 403
	NotFound           = 404
	ResourceLocked     = 405
	PreconditionFailed = 406
	FrameError         = 501
	SyntaxError        = 502
	CommandInvalid     = 503
	ChannelError       = 504
	UnexpectedFrame    = 505
	ResourceError      = 506
	NotAllowed         = 530
	NotImplemented     = 540
	InternalError      = 541
)

var replyNames = map[int]string{
	ReplySuccess:       "OK",
	ConnectionForced:   "CONNECTION_FORCED",
	NoRoute:            "NO_ROUTE",
	NoConsumers:        "NO_CONSUMERS",
	AccessRefused:      "ACCESS_REFUSED",
	NotFound:           "NOT_FOUND",
	ResourceLocked:     "RESOURCE_LOCKED",
	PreconditionFailed: "PRECONDITION_FAILED",
	FrameError:         "FRAME_ERROR",
	SyntaxError:        "SYNTAX_ERROR",
	CommandInvalid:     "COMMAND_INVALID",
	ChannelError:       "CHANNEL_ERROR",
	UnexpectedFrame:    "UNEXPECTED_FRAME",
	ResourceError:      "RESOURCE_ERROR",
	NotAllowed:         "NOT_ALLOWED",
	NotImplemented:     "NOT_IMPLEMENTED",
	InternalError:      "INTERNAL_ERROR",
}

// ReplyName returns the AMQP name of a reply code, e.g. "NOT_FOUND".
func ReplyName(code int) string { return replyNames[code] }

// Method identifies an AMQP method by class and method id; errors carry the
// method that caused them because channel.close and connection.close do.
type Method struct{ Class, ID uint16 }

// The methods the engine implements, by AMQP class and method id.
var (
	MethodConnectionOpen    = Method{10, 40}
	MethodChannelOpen       = Method{20, 10}
	MethodExchangeDeclare   = Method{40, 10}
	MethodExchangeDelete    = Method{40, 20}
	MethodExchangeBind      = Method{40, 30}
	MethodExchangeUnbind    = Method{40, 40}
	MethodQueueDeclare      = Method{50, 10}
	MethodQueueBind         = Method{50, 20}
	MethodQueuePurge        = Method{50, 30}
	MethodQueueDelete       = Method{50, 40}
	MethodQueueUnbind       = Method{50, 50}
	MethodBasicQos          = Method{60, 10}
	MethodBasicConsume      = Method{60, 20}
	MethodBasicCancel       = Method{60, 30}
	MethodBasicPublish      = Method{60, 40}
	MethodBasicGet          = Method{60, 70}
	MethodBasicAck          = Method{60, 80}
	MethodBasicReject       = Method{60, 90}
	MethodBasicRecoverAsync = Method{60, 100}
	MethodBasicRecover      = Method{60, 110}
	MethodBasicNack         = Method{60, 120}
	MethodTxSelect          = Method{90, 10}
	MethodTxCommit          = Method{90, 20}
	MethodTxRollback        = Method{90, 30}
	MethodConfirmSelect     = Method{85, 10}
)

// Error is an AMQP exception. A channel exception (Connection false) has
// already closed the channel inside the engine when it is returned; a
// connection exception has closed the whole connection. Text is RabbitMQ's
// reply text, e.g. "NOT_FOUND - no queue 'x' in vhost '/'".
type Error struct {
	Code       int
	Text       string
	Method     Method
	Connection bool
}

func (e *Error) Error() string {
	kind := "channel"
	if e.Connection {
		kind = "connection"
	}
	return fmt.Sprintf("%s error %d: %s", kind, e.Code, e.Text)
}

// channelErr builds a channel exception with RabbitMQ's "NAME - text" form.
func channelErr(code int, m Method, format string, args ...any) *Error {
	return &Error{Code: code, Method: m, Text: replyNames[code] + " - " + fmt.Sprintf(format, args...)}
}

// connectionErr builds a connection exception.
func connectionErr(code int, m Method, format string, args ...any) *Error {
	e := channelErr(code, m, format, args...)
	e.Connection = true
	return e
}

// rs renders a resource name as RabbitMQ's rabbit_misc:rs/1 does:
// "queue 'q' in vhost '/'".
func rs(kind, name, vhost string) string {
	return fmt.Sprintf("%s '%s' in vhost '%s'", kind, name, vhost)
}
