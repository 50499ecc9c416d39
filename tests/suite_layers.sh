#!/bin/sh
# The layers include only what is below them (scripts/check-layers.sh).
exec sh "$(dirname "$0")/../scripts/check-layers.sh"
