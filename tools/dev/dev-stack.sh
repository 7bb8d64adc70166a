#!/usr/bin/env bash
# Makes sure PostgreSQL and NATS with JetStream answer on their local ports, starting the locally
# installed ones when they are not running. Used by `npm start` and by CI.
set -u

port_open() { (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do port_open "$1" && return 0; sleep 0.5; done
  echo "dev-stack: nothing answers on 127.0.0.1:$1 ($2)" >&2
  return 1
}

if ! port_open 5432; then
  if command -v pg_ctlcluster > /dev/null 2>&1 && [ -d /etc/postgresql ]; then
    echo "dev-stack: starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  else
    echo "dev-stack: PostgreSQL is not running and not installed here; set DATABASE_URL to one" >&2
  fi
fi

if ! port_open 4222; then
  if [ -x /usr/sbin/nats-server ] || command -v nats-server > /dev/null 2>&1; then
    echo "dev-stack: starting NATS with JetStream"
    nats_bin=$(command -v nats-server || echo /usr/sbin/nats-server)
    store=${NATS_STORE_DIR:-/var/lib/nats-server}
    mkdir -p "$store"
    # As deploy/base/nats/nats.conf: a run with the largest input travels whole in one reply.
    echo 'max_payload: 8MB' > "$store/dev-stack.conf"
    start-stop-daemon --start --oknodo --background --exec "$nats_bin" -- \
      -c "$store/dev-stack.conf" -a 127.0.0.1 -p 4222 -js -sd "$store" -l "${NATS_LOG:-/var/log/nats-server.log}"
  else
    echo "dev-stack: NATS is not running and not installed here; set NATS_URL to one" >&2
  fi
fi

wait_port 5432 PostgreSQL && wait_port 4222 NATS
