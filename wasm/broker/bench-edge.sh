#!/bin/sh
# bench-edge.sh is `make bench-edge` (docs/edge.md, "How far one vhost
# goes"): the edge broker under `wrangler dev --local` on a fresh state
# directory, loaded by server/e2e/node/bench_edge.mjs over WebSocket:
# publish with confirms, publish + consume, and 100 vhosts at once. For
# each it prints messages a second and the CPU workerd used a message
# (its processes' utime + stime from /proc/PID/stat, the broker's own
# CPU, apart from the load client's). With RABBIT_URL (amqp://...) it
# runs the first two against that RabbitMQ over TCP too, with beam's CPU.
# Stops wrangler by its process group. Not part of `make test`.
set -eu
MESSAGES=${MESSAGES:-20000}
WINDOW=${WINDOW:-256}
VHOSTS=${VHOSTS:-100}
PER_VHOST=${PER_VHOST:-200}
PORT=${BENCH_EDGE_PORT:-8799}
state=$(mktemp -d)
log="$state/wrangler.log"
WRANGLER_SEND_METRICS=false CI=1 setsid node node_modules/wrangler/bin/wrangler.js dev -c wasm/broker/wrangler.toml \
	--local --ip 127.0.0.1 --port "$PORT" --inspector-ip 127.0.0.1 --inspector-port 0 --persist-to "$state" \
	--show-interactive-dev-session=false --var WARREN_ADMIN_USER:bench --var WARREN_ADMIN_PASSWORD:bench >"$log" 2>&1 &
pgid=$!
trap 'kill -- -$pgid 2>/dev/null; sleep 1; rm -rf "$state"' EXIT INT TERM
i=0
until grep -q "Ready on" "$log"; do
	i=$((i + 1)); [ $i -lt 120 ] || { cat "$log"; exit 1; }; sleep 0.5
done
# cpu prints the CPU ticks (utime + stime) of the processes named $1 in
# process group $2 (any group when empty).
cpu() {
	total=0
	for p in $(pgrep -f "$1"); do
		[ -z "$2" ] || [ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$2" ] || continue
		t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)
		total=$((total + t))
	done
	echo $total
}
hz=$(getconf CLK_TCK)
api="http://bench:bench@127.0.0.1:$PORT/api"
# run NAME URL SCENARIO MESSAGES PROCESS GROUP: one scenario and its line.
run() {
	before=$(cpu "$5" "$6")
	out=$(cd server/e2e/node && node --experimental-websocket bench_edge.mjs "$2" "$3" "$4" "$WINDOW" "$VHOSTS")
	after=$(cpu "$5" "$6")
	echo "$out" | awk -v b="$before" -v a="$after" -v hz="$hz" -v who="$1" -F'[:,}]' '{
		n = $4; s = $6; r = $8
		printf "%-9s %-12s %9d msgs %8.2f s %9d msgs/s %9.1f µs CPU/msg\n", who, $2, n, s, r, (a - b) / hz * 1e6 / n }'
}
ws="ws://bench:bench@127.0.0.1:$PORT/ws/amqp/%2F"
echo "window $WINDOW, 100-byte persistent messages into durable queues; $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD)"
run warren "$ws" confirms "$MESSAGES" "workerd serve" "$pgid"
run warren "$ws" pubsub "$MESSAGES" "workerd serve" "$pgid"
for v in $(seq 0 $((VHOSTS - 1))); do
	curl -sf -o /dev/null -X PUT -H 'Content-Type: application/json' -d '{}' "$api/vhosts/bench-$v"
	curl -sf -o /dev/null -X PUT -H 'Content-Type: application/json' -d '{"configure":".*","write":".*","read":".*"}' "$api/permissions/bench-$v/bench"
done
run warren "$ws" vhosts "$PER_VHOST" "workerd serve" "$pgid"
echo "storage: $(curl -sf "$api/overview" | node -e 'const o=JSON.parse(require("fs").readFileSync(0));const s=o.storage||{};console.log(JSON.stringify({size_bytes:s.size_bytes,log_records:s.log_records,log_bytes:s.log_bytes,durable_position:s.durable_position,last_snapshot_position:s.last_snapshot_position}))')"
echo "workerd RSS with $((VHOSTS + 1)) vhost objects loaded: $(ps -o rss= -g "$pgid" | awk '{s += $1} END {printf "%d MB", s / 1024}')"
if [ -n "${RABBIT_URL:-}" ]; then
	run rabbitmq "$RABBIT_URL" confirms "$MESSAGES" beam.smp ""
	run rabbitmq "$RABBIT_URL" pubsub "$MESSAGES" beam.smp ""
fi
