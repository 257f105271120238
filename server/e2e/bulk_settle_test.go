package e2e

import (
	"strconv"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// bulkN is more deliveries than one engine call settles (engine
// DefaultMaxBatch), so that the server's broker must carry a bulk ack or
// nack through its continuation, a batch per hold of its lock.
const bulkN = 3000

// consumeAll publishes bulkN messages with bodies "0".."2999" to queue q
// and returns a consuming channel with every one of them delivered, the
// last delivery's tag, and the channel's close notifications.
func consumeAll(t *testing.T, conn *amqp.Connection, q string) (*amqp.Channel, uint64, chan *amqp.Error) {
	t.Helper()
	pub := channel(t, conn)
	for i := range bulkN {
		publish(t, pub, "", q, amqp.Publishing{Body: []byte(strconv.Itoa(i))})
	}
	ch := channel(t, conn)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	d, err := ch.Consume(q, "c", false, false, false, false, nil)
	must(t, err)
	var last uint64
	for range bulkN {
		last = recv(t, d).DeliveryTag
	}
	return ch, last, closed
}

// TestBulkAckForgetsTagsAtOnce: after basic.ack multiple of 3,000
// deliveries, an ack of one of them is 406 "unknown delivery tag", and the
// queue counts none unacked.
func TestBulkAckForgetsTagsAtOnce(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclare("bulk", false, false, false, false, nil)
	must(t, err)
	con, last, closed := consumeAll(t, conn, "bulk")
	must(t, con.Ack(last, true))
	must(t, con.Ack(5, false))
	select {
	case e := <-closed:
		if e == nil || e.Code != 406 || e.Reason != "PRECONDITION_FAILED - unknown delivery tag 5" {
			t.Fatalf("ack of a tag acknowledged in bulk: %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no channel.close for a tag acknowledged in bulk")
	}
	q, err := ch.QueueDeclarePassive("bulk", false, false, false, false, nil)
	must(t, err)
	if q.Messages != 0 {
		t.Fatalf("the queue counts %d ready after the ack, want 0", q.Messages)
	}
}

// TestBulkNackDeadLettersInOrder: basic.nack multiple without requeue of
// 3,000 deliveries dead-letters every one, in delivery order.
func TestBulkNackDeadLettersInOrder(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclare("dead", false, false, false, false, nil)
	must(t, err)
	_, err = ch.QueueDeclare("bulk", false, false, false, false, amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"})
	must(t, err)
	con, last, _ := consumeAll(t, conn, "bulk")
	must(t, con.Nack(last, true, false))
	d, err := ch.Consume("dead", "d", true, false, false, false, nil)
	must(t, err)
	for i := range bulkN {
		if m := recv(t, d); string(m.Body) != strconv.Itoa(i) {
			t.Fatalf("dead letter %d is %q, want %q", i, m.Body, strconv.Itoa(i))
		}
	}
}

// TestBulkReturnOnCloseKeepsOrder: a channel closed holding 3,000
// deliveries gives them back a batch per engine call; a passive declare
// right after counts all 3,000, and a new consumer gets every one,
// redelivered, in the original order.
func TestBulkReturnOnCloseKeepsOrder(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclare("bulk", false, false, false, false, nil)
	must(t, err)
	con, _, _ := consumeAll(t, conn, "bulk")
	must(t, con.Close())
	q, err := ch.QueueDeclarePassive("bulk", false, false, false, false, nil)
	must(t, err)
	if q.Messages != bulkN {
		t.Fatalf("the queue counts %d ready after the close, want %d", q.Messages, bulkN)
	}
	d, err := ch.Consume("bulk", "again", true, false, false, false, nil)
	must(t, err)
	for i := range bulkN {
		if m := recv(t, d); string(m.Body) != strconv.Itoa(i) || !m.Redelivered {
			t.Fatalf("delivery %d is %q redelivered %v, want %q redelivered", i, m.Body, m.Redelivered, strconv.Itoa(i))
		}
	}
}

// TestBulkNackRequeueKeepsOrder: basic.nack multiple with requeue of
// 3,000 deliveries gives every one back to the same consumer, in order.
func TestBulkNackRequeueKeepsOrder(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclare("bulk", false, false, false, false, nil)
	must(t, err)
	pub := channel(t, conn)
	for i := range bulkN {
		publish(t, pub, "", "bulk", amqp.Publishing{Body: []byte(strconv.Itoa(i))})
	}
	con := channel(t, conn)
	d, err := con.Consume("bulk", "c", false, false, false, false, nil)
	must(t, err)
	var last uint64
	for range bulkN {
		last = recv(t, d).DeliveryTag
	}
	must(t, con.Nack(last, true, true))
	for i := range bulkN {
		m := recv(t, d)
		if string(m.Body) != strconv.Itoa(i) || !m.Redelivered {
			t.Fatalf("redelivery %d is %q redelivered %v, want %q redelivered", i, m.Body, m.Redelivered, strconv.Itoa(i))
		}
		last = m.DeliveryTag
	}
	must(t, con.Ack(last, true))
}

// TestLargeCommitOkAfterTheLast: tx.commit of 3,000 publishes is applied
// over several engine calls; tx.commit-ok comes after the last, so a
// passive declare right after it counts all 3,000.
func TestLargeCommitOkAfterTheLast(t *testing.T) {
	srv := startServer(t)
	conn := dial(t, srv)
	ch := channel(t, conn)
	_, err := ch.QueueDeclare("bulk", false, false, false, false, nil)
	must(t, err)
	tx := channel(t, conn)
	must(t, tx.Tx())
	for i := range bulkN {
		must(t, tx.Publish("", "bulk", false, false, amqp.Publishing{Body: []byte(strconv.Itoa(i))}))
	}
	must(t, tx.TxCommit())
	q, err := ch.QueueDeclarePassive("bulk", false, false, false, false, nil)
	must(t, err)
	if q.Messages != bulkN {
		t.Fatalf("the queue counts %d after tx.commit-ok, want %d", q.Messages, bulkN)
	}
}
