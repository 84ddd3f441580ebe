#!/usr/bin/env bash
# Installs the Debian engines the tournament scripts play against (into
# /usr/games, which the scripts search): stockfish (also the UCI_Elo ladder,
# stockfish@ELO), toga2, ethereal-chess (Ethereal 12, the anchor above Toga II),
# gnuchess, phalanx, sjeng, fairymax.
# usage: tournaments/install-opponents.sh   (as root, or with sudo available)
set -euo pipefail
packages=(stockfish toga2 ethereal-chess gnuchess phalanx sjeng fairymax)
command -v apt-get >/dev/null || { echo "error: apt-get not found: install ${packages[*]} with your package manager" >&2; exit 1; }
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
$sudo apt-get install -y --no-install-recommends "${packages[@]}"
