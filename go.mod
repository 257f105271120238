module warren

go 1.26.0

require (
	github.com/coder/websocket v1.8.14
	github.com/rabbitmq/amqp091-go v1.10.0
)
