"""pika_xdeath.py consumes one dead-lettered message with pika and prints
what a learner would look at: its body and its x-death header, as JSON.

    python3 pika_xdeath.py amqp://USER:PASS@127.0.0.1:5672/%2F QUEUE

It consumes (basic.consume, manual ack) the first message of QUEUE, acks
it, and prints one JSON object: {"body": ..., "x-death": [...]} with each
x-death entry's fields (time as Unix seconds). It exits 1 when no message
comes within 5 seconds, 2 on bad usage.
"""

import json
import sys

try:
    import pika
except ImportError:
    print("FAIL: python module pika is missing: run `make deps` "
          "(apt-get install -y python3-pika)", file=sys.stderr)
    sys.exit(1)


def plain(v):
    """plain turns header values into JSON-able ones."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if hasattr(v, "timestamp"):
        return int(v.timestamp())
    return v


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    url, queue = sys.argv[1], sys.argv[2]
    params = pika.URLParameters(url)
    params.client_properties = {"connection_name": "pika x-death reader"}
    conn = pika.BlockingConnection(params)
    ch = conn.channel()
    got = []

    def on_message(channel, method, props, body):
        got.append({"body": body.decode(), "x-death": plain((props.headers or {}).get("x-death", []))})
        channel.basic_ack(method.delivery_tag)
        channel.stop_consuming()

    ch.basic_consume(queue, on_message)
    conn.call_later(5, ch.stop_consuming)
    ch.start_consuming()
    conn.close()
    if not got:
        print("FAIL: no message in %s within 5 s" % queue, file=sys.stderr)
        sys.exit(1)
    print(json.dumps(got[0]))


main()
