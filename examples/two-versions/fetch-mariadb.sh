#!/bin/sh
# Unpacks one of Debian's MariaDB releases into a folder, as a CI job gets the last release to compare
# a new build with: `fetch-mariadb.sh 10.11.18 /opt/mariadb-10.11.18`, then `--server /opt/mariadb-10.11.18`
# or `--target old=/opt/mariadb-10.11.18`. Gauntlet finds the binary, its messages, character sets,
# plugins and mariadb-install-db in the folder; nothing is installed or copied elsewhere.
#
# mariadb-server-core holds mariadbd, mariadb-install-db and the share files; mariadb-server the plugins;
# mariadb-client-core my_print_defaults, which mariadb-install-db runs. apt-get download needs only
# Debian's mirror (no root when the folder is writable).
set -eu
version=${1:?usage: fetch-mariadb.sh VERSION [DIR]  (e.g. 10.11.18)}
dir=${2:-mariadb-$version}
debian=${DEBIAN_REVISION:-0+deb12u1}
if [ -x "$dir/usr/sbin/mariadbd" ]; then
  echo "$dir: already unpacked"
  exit 0
fi
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
sandbox=
[ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"  # else apt warns that its own user cannot write here
(cd "$debs" && apt-get download -q $sandbox "mariadb-server-core=1:$version-$debian" "mariadb-server=1:$version-$debian" \
    "mariadb-client-core=1:$version-$debian")
# Unpacked beside the folder under a name of its own, then renamed into place at once: a fetch running at
# the same time (two CI jobs, two test processes) never sees, runs or removes a half-unpacked server.
mkdir -p "$(dirname "$dir")"
part=$(mktemp -d "$dir.part.XXXXXX")
trap 'rm -rf "$debs" "$part"' EXIT
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$part"; done
chmod 755 "$part"
mv -T "$part" "$dir" 2>/dev/null || [ -x "$dir/usr/sbin/mariadbd" ] ||
  { echo "$dir: a folder without usr/sbin/mariadbd is in the way; remove it" >&2; exit 2; }
"$dir/usr/sbin/mariadbd" --version
