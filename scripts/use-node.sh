# Source this (`. scripts/use-node.sh`) to run the project on the Node.js major in .node-version
# when the shell's `node` is another one. Node.js itself comes from the npm registry (the
# node-linux-<arch> package ships the official binary), so this needs nothing but npm; it is kept
# per major under ~/.cache/billing-service and reused. Nothing changes when `node` already matches.
# shellcheck shell=bash

_use_node_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_use_node_major="$(tr -d '[:space:]v' < "$_use_node_root/.node-version")"
_use_node_major="${_use_node_major%%.*}"

if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$_use_node_major" ]; then
  case "$(uname -m)" in
    x86_64) _use_node_arch=x64 ;;
    aarch64 | arm64) _use_node_arch=arm64 ;;
    *) echo "scripts/use-node.sh: no Node.js package for $(uname -m); install Node.js $_use_node_major yourself" >&2; return 1 ;;
  esac
  # The user's cache, or the checkout's own when there is no HOME (a bare CI environment).
  _use_node_cache="${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}"
  _use_node_prefix="${_use_node_cache:-$_use_node_root/.cache}/billing-service/node-$_use_node_major"
  _use_node_home="$_use_node_prefix/node_modules/node-linux-$_use_node_arch"
  if [ "$("$_use_node_home/bin/node" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$_use_node_major" ]; then
    echo "Installing Node.js $_use_node_major from the npm registry (node-linux-$_use_node_arch) into $_use_node_prefix"
    mkdir -p "$_use_node_prefix"
    npm install --prefix "$_use_node_prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "node-linux-$_use_node_arch@$_use_node_major" || return 1
  fi
  export PATH="$_use_node_home/bin:$PATH"
  # Native addons compile against this Node's own headers (the package ships include/node).
  export npm_config_nodedir="$_use_node_home"
fi
unset _use_node_root _use_node_major _use_node_arch _use_node_cache _use_node_prefix _use_node_home
