package server

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// listen opens one of the server's listeners. An address another program
// holds (a RabbitMQ on 5672, say) is the commonest way a first start
// fails, so that refusal says, in both languages, which listener it was
// and how to pick another address; other errors are Go's own.
func listen(what, flagName, makeVar, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		how := fmt.Sprintf("warren serve --%s ADDR (make run %s=ADDR)", flagName, makeVar)
		return nil, &listenError{err: err, msg: fmt.Sprintf(
			"%s address %s is in use by another program; stop it, or pick another address: %s\n"+
				"%[1]s 地址 %[2]s 已被其他程序占用；请停止该程序，或换一个地址：%[3]s",
			what, addr, how)}
	}
	return ln, err
}

type listenError struct {
	err error
	msg string
}

func (e *listenError) Error() string { return e.msg }
func (e *listenError) Unwrap() error { return e.err }
