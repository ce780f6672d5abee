#!/bin/bash
set -u
SIDES="single batched" CLIENTS=1,16 bash .device/serve_batch.sh '/search?top=10'
SIDES="batched single" CLIENTS=1,16 bash .device/serve_batch.sh '/search?top=10&verify=50'
