#!/usr/bin/env bash
# Builds editors/vscode/asmdbg.vsix, the VS Code extension, from a clean checkout:
#   editors/vscode/scripts/package.sh
#   code --install-extension editors/vscode/asmdbg.vsix
# Needs Node.js 20 or newer and npm (it installs the pinned dev tools into node_modules/).
set -euo pipefail

cd "$(dirname "$0")/.."

if [[ -f package-lock.json ]]; then
    npm ci --no-audit --no-fund
else
    npm install --no-audit --no-fund
fi

# --no-dependencies: the extension uses only VS Code's API, so nothing from node_modules goes
# into the package. There is no public repository URL to put in package.json.
npx --no-install vsce package --no-dependencies --allow-missing-repository -o asmdbg.vsix

echo "built $(pwd)/asmdbg.vsix"
