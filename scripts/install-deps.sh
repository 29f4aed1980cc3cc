#!/bin/sh
# Install the Debian packages deepflow needs, only those missing.
# Idempotent; silent when everything is already there.  With --fuzz: only
# what make fuzz needs besides (clang, libFuzzer); with --mpi: only what
# make MPI=1 needs besides (OpenMPI).  Needs root (or sudo)
# only when something is missing.
set -e
PKGS="libxlsxwriter-dev libcsv-dev libyaml-dev libcmocka-dev gnuplot-nox pkg-config fonts-dejavu-core python3-openpyxl"
# --fuzz: also clang and its runtime (libFuzzer) for make fuzz
[ "${1:-}" = "--fuzz" ] && PKGS="clang libclang-rt-dev"
# --mpi: Debian's OpenMPI, for make MPI=1 and its test
[ "${1:-}" = "--mpi" ] && PKGS="libopenmpi-dev openmpi-bin"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
