#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install, with apt, what a step needs and is missing.
# Usage: install-deps.sh GROUP...
# Groups: git, python, tree, build, checks, lint, bench, users (the initiators
# kunit/users drives), and every architecture of
# kunit/arches.tsv (its packages column).
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

want=()
for group in "$@"; do
	case "$group" in
	git)	 want+=(git xz-utils) ;;
	python)	 want+=(python3) ;;
	tree)	 want+=(git xz-utils)
		 [ -n "${IDA_KUNIT_TARBALL:-}" ] || want+=("$PKG") ;;
	build)	 want+=(gcc make flex bison bc libelf-dev libssl-dev python3 ccache
			cpio kmod rsync) ;;
	checks)	 want+=(python3 python3-ply python3-git quilt patch perl liburcu-dev sparse
			libxml2-utils mypy python3-jsonschema python3-yaml) ;;
	lint)	 want+=(shellcheck yamllint)
		 command -v node >/dev/null && command -v npm >/dev/null || want+=(nodejs npm) ;;
	bench)	 want+=(valgrind liburcu-dev) ;;
	users)	 want+=(libiscsi-bin) ;;
	browser) want+=(chromium) ;;
	*)	 arch_params "$group"
		 want+=("${ARCH_PACKAGES[@]}") ;;
	esac
done

# One dpkg-query for all of them: it lists those it knows, with their status.
installed=" $(dpkg-query -W -f '${Package} ${Status}\n' "${want[@]}" 2>/dev/null |
	awk '$NF == "installed" && $(NF - 1) == "ok" { printf "%s ", $1 }')"
missing=()
for p in "${want[@]}"; do
	[[ "$installed" == *" $p "* ]] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get to install them"
[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}): run as root or install them"
info "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	apt-get -o DPkg::Lock::Timeout=600 update -q >>"$log" 2>&1
	if ! apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
		tail -n 5 "$log" >&2
		rm -f "$log"
		die "cannot install ${missing[*]}"
	fi
fi
rm -f "$log"
