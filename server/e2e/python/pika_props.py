"""pika_props.py publishes messages whose properties are present but empty
or zero, reads them back, and prints what pika received, as JSON.

    python3 pika_props.py amqp://USER:PASS@127.0.0.1:5672/%2F QUEUE [publish]

It declares QUEUE (not durable, purged first) and publishes to it through
the default exchange:

  "empty":   content_type "", content_encoding "", headers {}, priority 0,
             correlation_id "", reply_to "", message_id "", timestamp 0,
             type "", app_id "", cluster_id "" (delivery_mode, expiration
             and user_id absent: RabbitMQ refuses an empty expiration and
             an empty user_id, and pika cannot send delivery_mode 0);
  "cluster": cluster_id "c1" and delivery_mode 1, nothing else.

Without "publish" it then gets both (basic.get, no ack) and prints one JSON
object: {"empty": {PROPERTY: VALUE, ...}, "cluster": {...}}, each of the
14 properties with null for absent. With "publish" it only publishes and
leaves them in QUEUE for another client to read. It exits 1 when a message
does not come back within 5 seconds, 2 on bad usage.
"""

import json
import sys
import time

try:
    import pika
except ImportError:
    print("FAIL: python module pika is missing: run `make deps` "
          "(apt-get install -y python3-pika)", file=sys.stderr)
    sys.exit(1)

NAMES = ["content_type", "content_encoding", "headers", "delivery_mode", "priority",
         "correlation_id", "reply_to", "expiration", "message_id", "timestamp",
         "type", "user_id", "app_id", "cluster_id"]


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "publish"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    url, queue = sys.argv[1], sys.argv[2]
    conn = pika.BlockingConnection(pika.URLParameters(url))
    ch = conn.channel()
    ch.queue_declare(queue)
    ch.queue_purge(queue)
    empty = pika.BasicProperties(content_type="", content_encoding="", headers={}, priority=0,
                                 correlation_id="", reply_to="", message_id="", timestamp=0,
                                 type="", app_id="", cluster_id="")
    ch.basic_publish("", queue, b"empty", empty)
    ch.basic_publish("", queue, b"cluster", pika.BasicProperties(cluster_id="c1", delivery_mode=1))
    if len(sys.argv) == 4:
        conn.close()
        return
    out = {}
    deadline = time.time() + 5
    while len(out) < 2:
        method, props, body = ch.basic_get(queue, auto_ack=True)
        if method is None:
            if time.time() > deadline:
                print("FAIL: %d of 2 messages back from %s within 5 s" % (len(out), queue), file=sys.stderr)
                sys.exit(1)
            conn.sleep(0.05)
            continue
        out[body.decode()] = {k: getattr(props, k) for k in NAMES}
    ch.queue_delete(queue)
    conn.close()
    print(json.dumps(out, sort_keys=True))


main()
