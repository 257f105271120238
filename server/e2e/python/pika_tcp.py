"""pika_tcp.py drives a broker with pika (Debian's python3-pika) over TCP.

It checks queue TTL + dead-lettering with x-death (reason expired, then a
second death, reason rejected, in the same header), publisher confirms
(ack, nack on reject-publish overflow, a mandatory publish returned),
basic.get with its message count and redelivered flag, and channel
exceptions (406 PRECONDITION_FAILED, 404 NOT_FOUND) with RabbitMQ's texts.

    python3 pika_tcp.py amqp://guest:guest@127.0.0.1:5672/
    WARREN_AMQP_URL=amqp://... python3 pika_tcp.py

A mismatch is printed ("MISMATCH in step S: ...") and the scenario goes on;
an exception stops it ("FAIL in step S: ..."). It exits 0 after
"ok: N checks", 1 otherwise, 2 on bad usage. Every name it declares is
unique to the run, so it can be pointed at RabbitMQ too.
"""

import datetime
import os
import signal
import sys
import time

try:
    import pika
    import pika.exceptions
except ImportError:
    print("FAIL: python module pika is missing: run `make deps` "
          "(apt-get install -y python3-pika)", file=sys.stderr)
    sys.exit(1)

WAIT_S = 5
DEADLINE_S = 30

current_step = "start"
checks = 0
mismatches = 0


def step(name):
    global current_step
    current_step = name
    print(f"- {name}", flush=True)


def eq(got, want, what):
    global checks, mismatches
    checks += 1
    if got != want:
        mismatches += 1
        print(f"MISMATCH in step {current_step}: {what}: got {got!r}, want {want!r}",
              file=sys.stderr, flush=True)


def ok(cond, what, got=None):
    global checks, mismatches
    checks += 1
    if not cond:
        mismatches += 1
        print(f"MISMATCH in step {current_step}: {what}: got {got!r}",
              file=sys.stderr, flush=True)


def unique(prefix):
    return f"{prefix}-{os.getpid()}-{int(time.time() * 1000):x}"


def next_message(ch, queue, what):
    """Consumes one message from queue within WAIT_S, or fails."""
    for method, props, body in ch.consume(queue, auto_ack=False, inactivity_timeout=WAIT_S):
        if method is None:
            raise AssertionError(f"{what}: nothing within {WAIT_S} s")
        ch.cancel()
        return method, props, body
    raise AssertionError(f"{what}: consumer ended")


def expect_channel_error(call, what):
    """Runs call, which must make the broker close the channel."""
    try:
        call()
    except pika.exceptions.ChannelClosedByBroker as e:
        return e
    raise AssertionError(f"{what}: succeeded, want a channel error")


def ttl_and_dead_letters(conn):
    step("queue TTL + DLX: x-death expired, then rejected from the DLQ")
    ch = conn.channel()
    dlx, work, dead, final = unique("pika-dlx"), unique("pika-work"), unique("pika-dead"), unique("pika-final")
    ch.exchange_declare(dlx, exchange_type="topic")
    ok_ = ch.queue_declare(work, arguments={
        "x-message-ttl": 100,
        "x-dead-letter-exchange": dlx,
        "x-dead-letter-routing-key": "dead.expired",
    })
    eq((ok_.method.queue, ok_.method.message_count), (work, 0), "queue.declare-ok")
    ch.queue_declare(dead, arguments={"x-dead-letter-exchange": dlx, "x-dead-letter-routing-key": "final"})
    ch.queue_bind(dead, dlx, "dead.*")
    ch.queue_declare(final)
    ch.queue_bind(final, dlx, "final")

    sent_at = datetime.datetime.utcnow()
    ch.basic_publish("", work, b"pika-job", pika.BasicProperties(
        content_type="application/octet-stream", message_id="p-1", headers={"origin": "pika"}))

    method, props, body = next_message(ch, dead, "expired message in the dead-letter queue")
    eq(body, b"pika-job", "body")
    eq((method.exchange, method.routing_key), (dlx, "dead.expired"), "dead-letter exchange and routing key")
    eq(props.message_id, "p-1", "message-id kept")
    headers = props.headers or {}
    eq(headers.get("origin"), "pika", "publisher's header kept")
    deaths = headers.get("x-death")
    ok(isinstance(deaths, list) and len(deaths) == 1, "x-death has one entry", deaths)
    d = deaths[0]
    eq((d.get("reason"), d.get("queue"), d.get("exchange"), d.get("routing-keys"), d.get("count")),
       ("expired", work, "", [work], 1), "x-death (reason, queue, exchange, routing-keys, count)")
    t = d.get("time")
    ok(isinstance(t, datetime.datetime) and abs((t - sent_at).total_seconds()) < 60,
       "x-death time is a timestamp near now", t)
    eq(headers.get("x-first-death-reason"), "expired", "x-first-death-reason")

    # Rejecting it without requeue dead-letters it again: the newest death
    # comes first in x-death.
    ch.basic_reject(method.delivery_tag, requeue=False)
    method, props, body = next_message(ch, final, "rejected message in the final queue")
    ch.basic_ack(method.delivery_tag)
    eq(body, b"pika-job", "body after the second death")
    eq(method.routing_key, "final", "routing key of the second dead-lettering")
    headers = props.headers or {}
    deaths = headers.get("x-death") or []
    eq([(x.get("reason"), x.get("queue"), x.get("count"), x.get("routing-keys")) for x in deaths],
       [("rejected", dead, 1, ["dead.expired"]), ("expired", work, 1, [work])],
       "x-death after expired then rejected, newest first")
    eq((headers.get("x-first-death-reason"), headers.get("x-first-death-queue")), ("expired", work),
       "x-first-death-* stay with the first death")

    for q in (work, dead, final):
        ch.queue_delete(q)
    ch.exchange_delete(dlx)
    ch.close()


def confirms(conn):
    step("publisher confirms: ack, nack on reject-publish overflow, unroutable mandatory")
    ch = conn.channel()
    ch.confirm_delivery()
    q = unique("pika-confirm")
    ch.queue_declare(q, arguments={"x-max-length": 2, "x-overflow": "reject-publish"})
    ch.basic_publish("", q, b"c0")
    ch.basic_publish("", q, b"c1")
    try:
        ch.basic_publish("", q, b"c2")
        ok(False, "publish past x-max-length=2 with x-overflow=reject-publish is nacked", "acked")
    except pika.exceptions.NackError:
        pass  # pika lists only returned messages in e.messages, so it is empty here
    try:
        ch.basic_publish("amq.direct", "nowhere", b"lost", mandatory=True)
        ok(False, "mandatory publish with no route is returned", "acked without basic.return")
    except pika.exceptions.UnroutableError as e:
        eq([m.body for m in e.messages], [b"lost"], "returned message")
    eq(ch.queue_declare(q, passive=True).method.message_count, 2, "messages kept")
    ch.queue_delete(q)
    ch.close()


def basic_get(conn):
    step("basic.get: message count, nack + requeue, redelivered, get-empty")
    ch = conn.channel()
    q = unique("pika-get")
    ch.queue_declare(q)
    for i in range(3):
        ch.basic_publish("", q, f"g{i}".encode(), pika.BasicProperties(priority=1, type="t"))
    method, props, body = ch.basic_get(q, auto_ack=False)
    ok(method is not None, "basic.get-ok for a queue of 3")
    eq((body, method.message_count, method.redelivered, method.delivery_tag), (b"g0", 2, False, 1),
       "first get (body, message-count, redelivered, delivery-tag)")
    eq((props.priority, props.type), (1, "t"), "properties")
    ch.basic_nack(method.delivery_tag, requeue=True)
    method, _, body = ch.basic_get(q, auto_ack=False)
    eq((body, method.message_count, method.redelivered, method.delivery_tag), (b"g0", 2, True, 2),
       "get after nack with requeue")
    ch.basic_ack(method.delivery_tag)
    got = []
    while True:
        method, _, body = ch.basic_get(q, auto_ack=True)
        if method is None:
            break
        got.append((body, method.message_count))
        if len(got) > 3:
            break
    eq(got, [(b"g1", 1), (b"g2", 0)], "the rest with auto-ack, then get-empty")
    ch.queue_delete(q)
    ch.close()


def channel_errors(conn):
    step("channel errors: 406 inequivalent durable, 404 publish to a missing exchange")
    q = unique("pika-strict")
    ch = conn.channel()
    ch.queue_declare(q, durable=False)
    e = expect_channel_error(lambda: ch.queue_declare(q, durable=True), "redeclare as durable")
    eq((e.reply_code, e.reply_text),
       (406, f"PRECONDITION_FAILED - inequivalent arg 'durable' for queue '{q}' in vhost '/': "
             "received 'true' but current is 'false'"),
       "406 code and text")
    ok(ch.is_closed, "channel closed after 406")

    missing = unique("pika-no-exchange")
    ch = conn.channel()
    ch.confirm_delivery()
    e = expect_channel_error(lambda: ch.basic_publish(missing, "k", b"x"), "publish to a missing exchange")
    eq((e.reply_code, e.reply_text), (404, f"NOT_FOUND - no exchange '{missing}' in vhost '/'"),
       "404 code and text")

    ch = conn.channel()
    eq(ch.queue_declare(q, passive=True).method.message_count, 0, "connection still usable")
    ch.queue_delete(q)
    ch.close()


def main():
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("WARREN_AMQP_URL")
    if not url:
        print(f"usage: python3 {sys.argv[0]} amqp://guest:guest@127.0.0.1:5672/ "
              "(or set WARREN_AMQP_URL)", file=sys.stderr)
        return 2

    def on_deadline(*_):
        print(f"FAIL in step {current_step}: the scenario did not finish within {DEADLINE_S} s",
              file=sys.stderr, flush=True)
        os._exit(1)

    signal.signal(signal.SIGALRM, on_deadline)
    signal.alarm(DEADLINE_S)
    try:
        step("connect")
        params = pika.URLParameters(url)
        params.blocked_connection_timeout = WAIT_S
        conn = pika.BlockingConnection(params)
        ttl_and_dead_letters(conn)
        confirms(conn)
        basic_get(conn)
        channel_errors(conn)
        step("close")
        conn.close()
    except Exception as e:  # any exception ends the scenario with its step
        print(f"FAIL in step {current_step}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return 1
    if mismatches:
        print(f"FAIL: {mismatches} of {checks} checks mismatched", file=sys.stderr)
        return 1
    print(f"ok: {checks} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
