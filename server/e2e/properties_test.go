package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// referenceEnv names a RabbitMQ to run the property round trips against
// as well, e.g. amqp://guest:guest@127.0.0.1:5673/ (unset: Warren only).
const referenceEnv = "WARREN_REFERENCE_AMQP"

// propertyBrokers returns the AMQP URLs the round trips run against: a
// Warren of the test's own, and the reference RabbitMQ when one is given.
func propertyBrokers(t *testing.T) map[string]string {
	urls := map[string]string{"warren": "amqp://guest:guest@" + startServer(t).AMQPAddr() + "/"}
	if u := os.Getenv(referenceEnv); u != "" {
		urls["reference"] = u
	}
	return urls
}

// pikaProps runs pika_props.py against url, with extra arguments, and
// returns its output.
func pikaProps(t *testing.T, url, queue string, extra ...string) []byte {
	t.Helper()
	python := pythonWithPika(t)
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	argv := join(python, append([]string{filepath.Join(pythonDir, "pika_props.py"), url + "%2F", queue}, extra...)...)
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	if err != nil {
		msg := ""
		if x, ok := err.(*exec.ExitError); ok {
			msg = string(x.Stderr)
		}
		t.Fatalf("%v: %v %s", argv, err, msg)
	}
	return out
}

// TestPikaPropertiesRoundTrip: pika publishes properties present but empty
// or zero and reads them back exactly, and cluster-id is carried. The
// answer is RabbitMQ 3.10.8's, observed with the same script (pika 1.2.0,
// basic.get): every property sent came back, "" and 0 included, headers
// {} (not None); delivery_mode, expiration and user_id, not sent, None.
func TestPikaPropertiesRoundTrip(t *testing.T) {
	want := map[string]map[string]any{
		"empty": {"content_type": "", "content_encoding": "", "headers": map[string]any{}, "delivery_mode": nil, "priority": 0.0,
			"correlation_id": "", "reply_to": "", "expiration": nil, "message_id": "", "timestamp": 0.0, "type": "",
			"user_id": nil, "app_id": "", "cluster_id": ""},
		"cluster": {"content_type": nil, "content_encoding": nil, "headers": nil, "delivery_mode": 1.0, "priority": nil,
			"correlation_id": nil, "reply_to": nil, "expiration": nil, "message_id": nil, "timestamp": nil, "type": nil,
			"user_id": nil, "app_id": nil, "cluster_id": "c1"},
	}
	for name, url := range propertyBrokers(t) {
		t.Run(name, func(t *testing.T) {
			var got map[string]map[string]any
			out := pikaProps(t, url, "props-pika")
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("pika read back\n%v\nwant (RabbitMQ 3.10.8's answer)\n%v", got, want)
			}
		})
	}
}

// TestAmqp091ReadsPresentProperties: pika publishes the same messages and
// amqp091-go consumes them. amqp091-go has no presence for strings and
// numbers (it sends only non-zero ones), but it tells headers present
// and empty (an empty Table) from absent (nil), and a timestamp present
// as 0 (the Unix epoch) from absent (the zero time.Time). Observed,
// RabbitMQ 3.10.8, the same script and consumer: Headers Table{},
// Timestamp 1970-01-01T00:00:00Z, Priority 0 for "empty"; Headers nil,
// Timestamp zero, DeliveryMode 1 for "cluster". An amqp091-go publish of
// Priority 0 reads back as 0, as it was sent: absent.
func TestAmqp091ReadsPresentProperties(t *testing.T) {
	for name, url := range propertyBrokers(t) {
		t.Run(name, func(t *testing.T) {
			pikaProps(t, url, "props-amqp091", "publish")
			c, err := amqp.Dial(url)
			must(t, err)
			defer c.Close()
			ch := channel(t, c)
			defer ch.QueueDelete("props-amqp091", false, false, false)
			must(t, ch.PublishWithContext(context.Background(), "", "props-amqp091", false, false,
				amqp.Publishing{Priority: 0, Headers: amqp.Table{"k": "v"}, Body: []byte("amqp091")}))
			deliveries, err := ch.Consume("props-amqp091", "", true, false, false, false, nil)
			must(t, err)
			empty, cluster, own := recv(t, deliveries), recv(t, deliveries), recv(t, deliveries)
			if string(empty.Body) != "empty" || string(cluster.Body) != "cluster" || string(own.Body) != "amqp091" {
				t.Fatalf("bodies %q %q %q", empty.Body, cluster.Body, own.Body)
			}
			if empty.Headers == nil || len(empty.Headers) != 0 || !empty.Timestamp.Equal(time.Unix(0, 0)) || empty.Priority != 0 || empty.ContentType != "" {
				t.Errorf("empty: headers %#v (want an empty Table), timestamp %v (want the epoch), priority %d", empty.Headers, empty.Timestamp, empty.Priority)
			}
			if cluster.Headers != nil || !cluster.Timestamp.IsZero() || cluster.DeliveryMode != 1 {
				t.Errorf("cluster: headers %#v (want nil), timestamp %v (want none), delivery mode %d", cluster.Headers, cluster.Timestamp, cluster.DeliveryMode)
			}
			if own.Priority != 0 || !reflect.DeepEqual(own.Headers, amqp.Table{"k": "v"}) || !own.Timestamp.IsZero() {
				t.Errorf("amqp091-go's own: priority %d, headers %#v, timestamp %v", own.Priority, own.Headers, own.Timestamp)
			}
		})
	}
}
