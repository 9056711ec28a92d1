#!/usr/bin/env bash
# Installs gw as a systemd service (docs/deploy.md "systemd"): a `gw` system user, the binary in
# /usr/local/bin, the unit, and /etc/gw/gw.env (kept when it exists). Run again to upgrade.
#   sudo deploy/install.sh [path/to/gw]        (default: dist/gw, from `make build`)
# GW_INSTALL_ROOT=DIR installs under DIR instead of / (packaging, tests); nothing is started then.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
binary=${1:-$here/../dist/gw}
root=${GW_INSTALL_ROOT:-/}
root=${root%/}
user=gw

die() { echo "install.sh: $*" >&2; exit 1; }

if [ ! -f "$binary" ] || [ ! -x "$binary" ]; then die "no executable gw at $binary (build it with: make build)"; fi
if [ ! -f "$here/gw.service" ]; then die "deploy/gw.service is missing next to this script"; fi
if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then die "run as root (sudo), or set GW_INSTALL_ROOT"; fi

# The service user: a system account without a shell or a home of its own (its data is the
# StateDirectory, /var/lib/gw, which systemd creates and hands to it).
if [ -n "$root" ]; then
  if [ ! -f "$root/etc/passwd" ] || [ ! -f "$root/etc/group" ]; then die "$root/etc/passwd and $root/etc/group must exist"; fi
  if ! grep -q "^$user:" "$root/etc/passwd"; then
    useradd --prefix "$root" --system --user-group --home-dir /var/lib/gw --no-create-home --shell /usr/sbin/nologin "$user"
  fi
elif ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --user-group --home-dir /var/lib/gw --no-create-home --shell /usr/sbin/nologin "$user"
fi
gid=$(awk -F: -v u="$user" '$1 == u { print $3 }' "$root/etc/group")
[ -n "$gid" ] || die "group $user not found in $root/etc/group"

# The binary is replaced by a rename, so a running gw keeps its inode until it restarts.
install -d -m 0755 "$root/usr/local/bin"
install -m 0755 "$binary" "$root/usr/local/bin/gw.new"
mv -f "$root/usr/local/bin/gw.new" "$root/usr/local/bin/gw"
install -D -m 0644 "$here/gw.service" "$root/etc/systemd/system/gw.service"

# Settings and secrets: readable by root and the gw group only; never overwritten.
env_file=$root/etc/gw/gw.env
install -d -m 0750 -o 0 -g "$gid" "$root/etc/gw"
if [ ! -e "$env_file" ]; then
  token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
  umask 027
  cat >"$env_file" <<ENV
# gw settings (docs/running.md "Configuration"); the unit reads this file at every start.
HOST=127.0.0.1
PORT=8080
# The admin API and /metrics/prometheus (docs/security.md "Admin"); keep it secret.
GW_ADMIN_TOKEN=$token
# At least one provider, e.g.:
# OPENAI_API_KEY=sk-...
# ANTHROPIC_API_KEY=sk-ant-...
# Where users reach gw through the reverse proxy:
# GW_PUBLIC_URL=https://gw.example.com
# GW_TRUSTED_PROXIES=127.0.0.1/32
ENV
  chown "0:$gid" "$env_file"
  chmod 0640 "$env_file"
  echo "wrote $env_file (admin token generated; add a provider key)"
else
  echo "kept $env_file"
fi

echo "installed $root/usr/local/bin/gw and $root/etc/systemd/system/gw.service"
if [ -z "$root" ] && command -v systemctl >/dev/null 2>&1; then
  systemctl daemon-reload
  echo "next: edit /etc/gw/gw.env, then: systemctl enable --now gw   (an upgrade: systemctl restart gw)"
fi
