#!/bin/sh
echo "schema-engine not available: use npm run db:migrate" >&2
exit 1
