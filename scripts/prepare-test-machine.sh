#!/usr/bin/env bash
# Makes this machine ready for the test suite; `npm test` (the README's test command) runs it first, and so
# does .ci/run through `npm test`. Never prompts: it runs where there is no terminal.
#   - Debian's chromium (the browser suites drive it through playwright-core) and the fonts-noto-cjk and
#     fonts-noto-color-emoji fonts (legible Chinese and emoji in the screenshots): installed with apt-get when
#     missing and this user may (root, or passwordless sudo).
#   - Real CAS clients (the CAS suites sign in through them): Apache httpd with mod_auth_cas
#     (apache2, libapache2-mod-auth-cas) and phpCAS (php-cli, php-cas, and php-xml: phpCAS reads the CAS
#     answers with DOMDocument, which Debian's php-cas does not pull in), installed with apt-get the same way.
#     The suites start their own httpd and `php -S` on free ports; the system's apache2 service is left alone.
#   - Debian's slapd and ldap-utils (the directory tests, test/ldap/, start their own slapd on a free port with
#     its own configuration in a temporary folder): installed with apt-get when missing, without configuring or
#     starting the system's directory service (a policy-rc.d refuses service starts during the install, and
#     debconf is told to skip slapd's own configuration), and a system slapd left running is stopped.
#   - PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test): a local cluster that
#     is installed but stopped is started with pg_ctlcluster, and the database is created when missing.
# What it cannot do stops it at once, with one line that says what to install or start.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'prepare-test-machine: %s\n' "$*" >&2; }
stop() {
  say "$*"
  exit 1
}

# Root, or passwordless sudo (sudo -n never asks for a password).
may_be_root() { [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
sudo_hint() { if [ "$(id -u)" = 0 ]; then echo ''; else echo 'sudo '; fi; }

# --- Chromium and fonts ---------------------------------------------------------------------------------------
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}

# A Debian package is installed (dpkg), or, on a machine without dpkg, fontconfig knows the font family.
have_font() {
  if command -v dpkg-query >/dev/null; then
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
  else
    fc-list 2>/dev/null | grep -qi "$2"
  fi
}

missing=()
[ -x "$chromium" ] || missing+=(chromium)
slapd=${SLAPD_PATH:-/usr/sbin/slapd}
[ -x "$slapd" ] || missing+=(slapd)
command -v ldapsearch >/dev/null || missing+=(ldap-utils)
have_font fonts-noto-cjk 'Noto Sans CJK' || missing+=(fonts-noto-cjk)
have_font fonts-noto-color-emoji 'Noto Color Emoji' || missing+=(fonts-noto-color-emoji)
# A Debian package is installed (dpkg), or, on a machine without dpkg, the file it ships exists.
have_package() {
  if command -v dpkg-query >/dev/null; then
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
  else
    [ -e "$2" ]
  fi
}
have_package apache2 /usr/sbin/apache2 || missing+=(apache2)
have_package libapache2-mod-auth-cas /usr/lib/apache2/modules/mod_auth_cas.so || missing+=(libapache2-mod-auth-cas)
have_package php-cli /usr/bin/php || missing+=(php-cli)
have_package php-cas /usr/share/php/CAS.php || missing+=(php-cas)
have_package php-xml /etc/php/8.2/mods-available/dom.ini || missing+=(php-xml)

if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null ||
    stop "missing ${missing[*]} and no apt-get here: install Chromium (or set CHROMIUM_PATH to one), the Noto CJK and Noto Color Emoji fonts, Apache httpd with mod_auth_cas, PHP with phpCAS, and OpenLDAP's slapd and ldap-utils (or set SLAPD_PATH)"
  may_be_root ||
    stop "missing ${missing[*]}: run  sudo apt-get install -y ${missing[*]}  (this user is not root and has no passwordless sudo)"
  say "installing ${missing[*]} with apt-get (a minute or two)"
  apt=(env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)
  # apt and dpkg talk a lot; their words are shown only when they fail.
  apt_log=$(mktemp)
  trap 'rm -f "$apt_log"' EXIT
  as_root "${apt[@]}" update >"$apt_log" 2>&1 || {
    tail -n 20 "$apt_log" >&2
    stop "apt-get update failed (above): fix the apt sources, then run  $(sudo_hint)apt-get install -y ${missing[*]}"
  }
  # slapd's package would configure and start a system directory on port 389: the tests need neither.
  policy_rc=/usr/sbin/policy-rc.d
  placed_policy=no
  if [ ! -e "$policy_rc" ]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy_rc" >/dev/null && as_root chmod 755 "$policy_rc" && placed_policy=yes
  fi
  echo 'slapd slapd/no_configuration boolean true' | as_root debconf-set-selections 2>/dev/null || true
  apt_status=0
  as_root "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >"$apt_log" 2>&1 || apt_status=$?
  [ "$placed_policy" = no ] || as_root rm -f "$policy_rc"
  [ "$apt_status" = 0 ] || {
    tail -n 20 "$apt_log" >&2
    stop "apt-get install failed (above): run  $(sudo_hint)apt-get install -y ${missing[*]}"
  }
  [ -x "$chromium" ] || stop "$chromium is still missing after installing chromium: set CHROMIUM_PATH to the Chromium binary"
fi

[ -x "$slapd" ] || stop "$slapd is still missing after installing slapd: set SLAPD_PATH to the slapd binary"
# A system slapd (from an earlier install) is not what the tests use; one listening on 389 is stopped so that
# nothing answers there by mistake. The tests' own slapd runs from a temporary folder on a free port.
if command -v pgrep >/dev/null && pgrep -x slapd -u openldap >/dev/null 2>&1 && may_be_root; then
  say "stopping the system slapd (the directory tests start their own)"
  as_root service slapd stop >/dev/null 2>&1 || true
fi

# --- PostgreSQL ---------------------------------------------------------------------------------------------------
read -r pg_host pg_port < <(node scripts/test-database.mjs where)
target="PostgreSQL at ${pg_host}:${pg_port}"

if ! problem=$(node scripts/test-database.mjs reachable); then
  case "$pg_host" in
    127.0.0.1 | localhost | ::1 | '[::1]') local_server=yes ;;
    *) local_server=no ;;
  esac
  # The local cluster on that port, as "<version> <name>", when one is installed and down.
  cluster=''
  if [ "$local_server" = yes ] && command -v pg_lsclusters >/dev/null; then
    cluster=$(pg_lsclusters --no-header 2>/dev/null | awk -v port="$pg_port" '$3 == port && $4 ~ /^down/ { print $1, $2; exit }')
  fi
  if [ -n "$cluster" ]; then
    read -r version name <<<"$cluster"
    may_be_root ||
      stop "$target is stopped: run  sudo pg_ctlcluster $version $name start  (this user is not root and has no passwordless sudo)"
    say "starting the PostgreSQL cluster $version/$name"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start ||
      stop "pg_ctlcluster $version $name start failed (see /var/log/postgresql/postgresql-$version-$name.log)"
    for _ in $(seq 1 30); do
      problem=$(node scripts/test-database.mjs reachable) && break
      sleep 1
    done
    [ -z "$problem" ] || stop "$target is not reachable after starting cluster $version/$name: $problem"
  elif [ "$local_server" = yes ] && ! command -v pg_ctlcluster >/dev/null; then
    stop "$target is not reachable ($problem): install PostgreSQL (apt-get install -y postgresql) or set TEST_DATABASE_URL to a server that is"
  else
    stop "$target is not reachable ($problem): start it, or set TEST_DATABASE_URL to a server that is"
  fi
fi
node scripts/test-database.mjs create || stop "could not create the test database on $target (see above)"

say "ready: $chromium, Noto CJK and emoji fonts, Apache httpd with mod_auth_cas, PHP with phpCAS, $slapd, $target"
