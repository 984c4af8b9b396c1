#!/usr/bin/env bash
# Installs the Debian packages the tests use, only those that are missing.
set -euo pipefail
need=()
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)  # e2e tests
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
# The tree as a Linux screen reader reads it (tests/e2e/test_tree_atspi.py): the desktop browser
# on an X display of its own, a D-Bus session, the AT-SPI bus and Debian's Python binding to it.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus-daemon)
[ -x /usr/libexec/at-spi-bus-launcher ] || need+=(at-spi2-core)
/usr/bin/python3 -c 'import pyatspi' >/dev/null 2>&1 || need+=(python3-pyatspi gir1.2-atspi-2.0)
command -v npm >/dev/null 2>&1 || need+=(npm)  # installs axe-core for the e2e suite and ESLint
# Paper exams: WeasyPrint's Pango and a font to draw the sheets with (the service needs them
# too), poppler's pdftotext/pdfinfo to read the PDFs back, and pdflatex with TikZ for the
# exported LaTeX.
ldconfig -p | grep -q 'libpangoft2-1.0.so.0' || need+=(libpango-1.0-0 libpangoft2-1.0-0)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v pdfinfo >/dev/null 2>&1 || need+=(poppler-utils)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)  # paper tests: sheets as pixels
command -v pdflatex >/dev/null 2>&1 || need+=(texlive-latex-base texlive-pictures)
# make test-backends: PostgreSQL and Redis, started by the tests, on top of the packages above
# (tests/jobs' workers run engines in bubblewrap there too).
if [ "${1:-}" = backends ]; then
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
    command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
    # bench.deadline --machines (make bench-machines): each worker in a network namespace
    command -v ip >/dev/null 2>&1 || need+=(iproute2)
fi
# make test-image: podman builds the Dockerfile on a base debootstrap makes (scripts/test-image.sh).
if [ "${1:-}" = image ]; then
    command -v podman >/dev/null 2>&1 || need+=(podman)
    command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
fi
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing Debian packages: ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
