#!/usr/bin/env bash
# A replicated pair on this machine (README, "Replication (NATS JetStream)"): a nats-server with JetStream
# on loopback, a leader, a standby and EDGES stream edges, each with its own data directory under
# CLUSTER_DIR. Ctrl-C stops them all (the servers shut down cleanly; the leader gives its lease up).
#
#   npm run cluster                  (CLUSTER_DIR=./data/cluster NATS_PORT=4222 LEADER_PORT=8080 STANDBY_PORT=8081
#                                     EDGES=2 EDGE_PORT=8090: edges on 8090, 8091, ...)
#
# Every other setting (ADMIN_API_KEY, REPLICATION_LEASE_TTL_MS, ...) is passed on from the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nats-server >/dev/null 2>&1; then
  echo "nats-server missing: apt-get install -y nats-server" >&2
  exit 1
fi
CLUSTER_DIR=${CLUSTER_DIR:-./data/cluster}
NATS_PORT=${NATS_PORT:-4222}
LEADER_PORT=${LEADER_PORT:-8080}
STANDBY_PORT=${STANDBY_PORT:-8081}
EDGES=${EDGES:-2}
EDGE_PORT=${EDGE_PORT:-8090}
mkdir -p "$CLUSTER_DIR"
node scripts/build.mjs

pids=()
stop() {
  trap - EXIT INT TERM
  # The servers first (they publish their last batches and give the lease up), then NATS.
  if [ ${#pids[@]} -gt 1 ]; then kill -TERM "${pids[@]:1}" 2>/dev/null || true; wait "${pids[@]:1}" 2>/dev/null || true; fi
  kill -TERM "${pids[0]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

wait_for() {
  # wait_for <description> <node script printing nothing and exiting 0 when ready>
  for _ in $(seq 1 150); do
    if node -e "$2" 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  echo "$1 did not come up" >&2
  exit 1
}

nats-server -js -a 127.0.0.1 -p "$NATS_PORT" -sd "$CLUSTER_DIR/nats" &
pids+=($!)
wait_for "nats-server" "const s=require('node:net').connect($NATS_PORT,'127.0.0.1');s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1))"

export REPLICATION=jetstream NATS_URL="nats://127.0.0.1:$NATS_PORT"
PORT=$LEADER_PORT DATA_DIR="$CLUSTER_DIR/a" REPLICATION_NODE_ID=a node --enable-source-maps dist/shell/server.mjs &
pids+=($!)
leader_ready="fetch('http://127.0.0.1:$LEADER_PORT/leader').then(r=>r.json()).then(b=>process.exit(b.role==='leader'?0:1),()=>process.exit(1))"
wait_for "the leader" "$leader_ready"
PORT=$STANDBY_PORT DATA_DIR="$CLUSTER_DIR/b" REPLICATION_NODE_ID=b node --enable-source-maps dist/shell/server.mjs --standby &
pids+=($!)
edge_ports=""
for ((i = 0; i < EDGES; i++)); do
  PORT=$((EDGE_PORT + i)) DATA_DIR="$CLUSTER_DIR/edge-$i" REPLICATION_NODE_ID="edge-$i" node --enable-source-maps dist/shell/server.mjs --edge &
  pids+=($!)
  edge_ports="$edge_ports $((EDGE_PORT + i))"
done
echo "cluster: nats-server on $NATS_PORT, leader a on $LEADER_PORT, standby b on $STANDBY_PORT, edges on${edge_ports:- (none)} (GET /leader on any)" >&2
wait
