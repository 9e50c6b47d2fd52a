#!/bin/sh
# Stands in for the compiled agentd binary in the launcher's tests: echoes its arguments, exits with the
# code given as "exit N", or with "wait" says ready and runs until SIGTERM (then exits 7).
echo "args: $*"
if [ "$1" = "exit" ]; then exit "$2"; fi
if [ "$1" = "wait" ]; then
  trap 'echo "got TERM"; exit 7' TERM
  echo ready
  while true; do sleep 1 & wait $!; done
fi
exit 0
