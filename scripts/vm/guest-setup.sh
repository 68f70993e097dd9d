#!/usr/bin/env bash
# guest-setup.sh DEB — runs as root inside the test guest: the install guide
# (systemd/README.md, "Install from the .deb") on one host, step by step.
set -euo pipefail
deb=$1
pgpass=oj-vm-password
cd /

echo "== dpkg -i $(basename "$deb")"
# Everything the package Depends on and Recommends is already in the image (no network).
dpkg -i "$deb"

echo "== PostgreSQL: role and database oj"
runuser -u postgres -- psql -v ON_ERROR_STOP=1 -qc "CREATE ROLE oj LOGIN PASSWORD '$pgpass'"
runuser -u postgres -- createdb -O oj oj

echo "== Redis: appendonly yes, noeviction"
sed -i -e 's/^appendonly no/appendonly yes/' /etc/redis/redis.conf
grep -q '^maxmemory-policy' /etc/redis/redis.conf || echo 'maxmemory-policy noeviction' >>/etc/redis/redis.conf
systemctl restart redis-server

echo "== /etc/oj/ojd.env"
# The API is reached through qemu's port forward (the guest's NIC, not loopback). A TCG
# guest compiles 10-30 times slower than the host: the compile limits are raised here.
install -m 0640 -o root -g oj /dev/null /etc/oj/ojd.env
cat >/etc/oj/ojd.env <<EOF
OJ_POSTGRES_URL=postgres://oj:$pgpass@127.0.0.1:5432/oj?sslmode=disable
OJ_API_LISTEN=0.0.0.0:8080
OJ_JUDGE_COMPILE_CPU=120s
OJ_JUDGE_COMPILE_WALL=240s
EOF
ojd_env() { (set -a; . /etc/oj/ojd.env; set +a; "$@"); }

echo "== judge.languages_file: the languages this host has toolchains for"
# The worker refuses to start while a configured language's toolchain is missing; this
# guest has gcc, g++ and python3, as the package recommends.
install -m 0644 /usr/share/doc/oj/examples/languages.yaml /etc/oj/languages.yaml
sed -i 's|^  languages_file: ""|  languages_file: "/etc/oj/languages.yaml"|' /etc/oj/ojd.yaml
grep -q '^  languages_file: "/etc/oj/languages.yaml"' /etc/oj/ojd.yaml

echo "== ojd migrate up"
ojd_env ojd --config /etc/oj/ojd.yaml migrate up
ojd_env ojd --config /etc/oj/ojd.yaml config >/dev/null

echo "== admin token for the maintenance timers"
token=$(ojd_env ojd --config /etc/oj/ojd.yaml token create --name maintenance --role admin | tail -n 1)
install -m 0600 /dev/null /etc/oj/ojctl.env
printf 'OJCTL_SERVER=http://127.0.0.1:8080\nOJCTL_TOKEN=%s\n' "$token" >/etc/oj/ojctl.env

echo "== enable the units"
systemctl enable --now ojd-api.service ojd-dispatcher.service ojd-worker.service
systemctl enable --now ojctl-trim.timer ojctl-dlq-replay.timer
# The host's ojctl uses this token (printed last).
echo "$token"
