#!/bin/sh
# make validate: deepflow against vTrain's measured A100 iteration times.
exec /usr/bin/python3 "$(dirname "$0")/validate.py" "$@"
