#!/bin/bash
set -u
bash .device/feature_batches.sh
SIDES="batched single" bash .device/serve_batch.sh '/search?top=10'
