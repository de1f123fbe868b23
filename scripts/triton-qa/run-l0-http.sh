#!/usr/bin/env bash
# Runs Triton's own qa/L0_http tests (http_test.py, http_input_size_limit_test.py,
# http_request_many_chunks.py, python_http_aio_test.py and the curl block of test.sh) against
# infernode, with the server arguments test.sh uses, and prints one line per test: pass or fail.
# Only host, port and model repository are adapted. Not part of CI: it needs Triton's sources
# (a git mirror of triton-inference-server/server) and Triton's Python client library, neither of
# which is in this repository. See docs/compatibility.md ("Triton's own HTTP tests").
#
#   npm run build
#   TRITON_SERVER_GIT=/path/to/server.git TRITON_CLIENT_PY=/path/to/client/src/python/library \
#     scripts/triton-qa/run-l0-http.sh [uws|node]
#   ONLY=python_http_aio_test scripts/triton-qa/run-l0-http.sh node   # one section
#
# Needs python3 with numpy, requests, psutil, aiohttp, geventhttpclient, rapidjson and ml_dtypes
# (EXTRA_PYTHONPATH may point at a directory holding any of them).
set -uo pipefail

FRONT_END="${1:-uws}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TRITON_SERVER_GIT="${TRITON_SERVER_GIT:?set TRITON_SERVER_GIT to a git directory of Triton's server repository}"
TRITON_CLIENT_PY="${TRITON_CLIENT_PY:?set TRITON_CLIENT_PY to Triton's client src/python/library}"
PORT="${PORT:-18500}"
WORK="${WORK:-/tmp/infernode-l0-http-$FRONT_END}"
PYTHON="${PYTHON:-python3}"
# ONLY: the sections to run, by name (http_test http_input_size_limit_test
# http_request_many_chunks python_http_aio_test curl); all when unset.
ONLY="${ONLY:-}"
want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

rm -rf "$WORK" && mkdir -p "$WORK/src"
git --git-dir="$TRITON_SERVER_GIT" archive HEAD qa/L0_http qa/common | tar -x -C "$WORK/src"
TESTS="$WORK/src/qa/L0_http"
# The one adaptation: Triton's address. Models keep their names.
sed -i "s/localhost:8000/localhost:$PORT/g; s/self._http_port = 8000/self._http_port = $PORT/" "$TESTS"/*.py
export PYTHONPATH="$TRITON_CLIENT_PY:$WORK/src/qa/common${EXTRA_PYTHONPATH:+:$EXTRA_PYTHONPATH}"
REPO="$WORK/models"
node "$ROOT/dist/scripts/triton-qa/l0-http-repository.js" "$REPO"

SERVER_PID=0
start_server() { # args: log name, then server flags
  local log="$WORK/server-$1.log"
  shift
  node "$ROOT/dist/src/cli/main.js" --http-front-end "$FRONT_END" --http-port "$PORT" \
    --grpc-port $((PORT + 1)) --metrics-port $((PORT + 2)) "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 120); do
    if grep -q '"msg":"serving HTTP' "$log"; then return 0; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "server failed to start: $log" >&2
      SERVER_PID=0
      return 1
    fi
    sleep 0.5
  done
  return 1
}
stop_server() {
  if [ "$SERVER_PID" != 0 ]; then kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null; fi
  SERVER_PID=0
}
trap stop_server EXIT

run_python() { # args: file, then unittest arguments; prints "<file> <test> ok|FAIL|ERROR"
  local file="$1"
  shift
  local log="$WORK/$file.${1:-all}.log"
  (cd "$TESTS" && SERVER_PID=$SERVER_PID timeout 900 "$PYTHON" "$file" -v "$@" >"$log" 2>&1)
  # unittest -v names each test at the start of a line (a docstring or prints may follow before
  # its verdict); failures and errors are listed again, one header each, at the end.
  local name verdict
  for name in $(grep -oE '^test_[a-z0-9_]+ \(' "$log" | tr -d ' (' | sort -u); do
    verdict=$(grep -oE "^(FAIL|ERROR): $name " "$log" | head -n 1 | cut -d: -f1)
    echo "$file $name ${verdict:-ok}"
  done
  grep -q -E '^(OK|FAILED)' "$log" || echo "$file (did not finish: see $log)"
}

if want http_test; then
  echo "== http_test.py"
  start_server http_test --model-repository "$REPO" --model-control-mode explicit --load-model '*'
  run_python http_test.py
  stop_server
fi

if want http_input_size_limit_test; then
  echo "== http_input_size_limit_test.py"
  start_server size_default --model-repository "$REPO"
  for t in test_default_limit_raw_binary test_default_limit_json test_large_string_in_json \
    test_default_limit_compressed test_json_dtype_size_expansion_exceeds_limit_error \
    test_no_leak_on_invalid_inference_header_length; do
    run_python http_input_size_limit_test.py "InferSizeLimitTest.$t"
  done
  stop_server
  start_server size_large --model-repository "$REPO" --http-max-input-size $((2 ** 27))
  for t in test_large_input_raw_binary test_large_input_json test_large_input_compressed; do
    run_python http_input_size_limit_test.py "InferSizeLimitTest.$t"
  done
  stop_server
  for size in 0 -1024; do
    log="$WORK/server-size-$size.log"
    node "$ROOT/dist/src/cli/main.js" --model-repository "$REPO" --http-max-input-size="$size" >"$log" 2>&1
    if grep -q -- "Error: --http-max-input-size must be greater than 0." "$log"; then
      echo "test.sh http-max-input-size=$size ok"
    else
      echo "test.sh http-max-input-size=$size FAIL: $(tail -n 1 "$log")"
    fi
  done
fi

if want http_request_many_chunks; then
  echo "== http_request_many_chunks.py"
  start_server many_chunks --model-repository "$REPO" --model-control-mode explicit --load-model simple
  run_python http_request_many_chunks.py
  stop_server
fi

if want python_http_aio_test; then
  echo "== python_http_aio_test.py"
  start_server aio --model-repository "$REPO" --allow-client-shm=true
  run_python python_http_aio_test.py
  stop_server
fi

if want curl; then
  echo "== test.sh curl block (binary and JSON combinations, bad data)"
  start_server curl --model-repository "$REPO"
  INPUT='[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]'
  SUM='\[2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32\]'
  DIFF='\[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\]'
  BOTH="{\"name\":\"INPUT0\",\"datatype\":\"INT32\",\"shape\":[1,16],\"data\":$INPUT},{\"name\":\"INPUT1\",\"datatype\":\"INT32\",\"shape\":[1,16],\"data\":$INPUT}"
  curl_case() { # args: name, body, expect 200 (yes|no), sum count, diff count or error text
    local out="$WORK/curl.out" code
    code=$(curl -s -w '%{http_code}' -o "$out" -d "$2" "localhost:$PORT/v2/models/simple/infer")
    local why=""
    if [ "$3" = yes ]; then
      [ "$code" = 200 ] || why="status $code"
      [ "$(grep -c "$SUM" "$out")" = "$4" ] || why="$why; sum found $(grep -c "$SUM" "$out") times, expected $4"
      [ "$(grep -c "$DIFF" "$out")" = "$5" ] || why="$why; difference found $(grep -c "$DIFF" "$out") times, expected $5"
    else
      [ "$code" != 200 ] || why="status 200"
      grep -qF "$4" "$out" || why="$why; expected $4, got $(cat "$out")"
    fi
    if [ -z "$why" ]; then echo "test.sh curl $1 ok"; else echo "test.sh curl $1 FAIL: $why"; fi
  }
  curl_case json-default "{\"inputs\":[$BOTH]}" yes 1 1
  curl_case binary-true-false "{\"inputs\":[$BOTH],\"outputs\":[{\"name\":\"OUTPUT0\",\"parameters\":{\"binary_data\":true}},{\"name\":\"OUTPUT1\",\"parameters\":{\"binary_data\":false}}]}" yes 0 1
  curl_case binary-true-unset "{\"inputs\":[$BOTH],\"outputs\":[{\"name\":\"OUTPUT0\",\"parameters\":{\"binary_data\":true}},{\"name\":\"OUTPUT1\"}]}" yes 0 1
  curl_case binary-output-all "{\"parameters\":{\"binary_data_output\":true},\"inputs\":[$BOTH]}" yes 0 0
  curl_case binary-output-false-unset "{\"parameters\":{\"binary_data_output\":true},\"inputs\":[$BOTH],\"outputs\":[{\"name\":\"OUTPUT0\",\"parameters\":{\"binary_data\":false}},{\"name\":\"OUTPUT1\"}]}" yes 1 1
  curl_case data-too-short '{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,16],"data":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]}' no \
    "{\"error\":\"Failed to parse 'data' field: shape does not match true shape\"}"
  curl_case data-too-long '{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,16],"data":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]}]}' no \
    "{\"error\":\"Unable to parse 'data': Shape does not match true shape of 'data' field\"}"
  curl_case still-serving "{\"inputs\":[$BOTH]}" yes 1 1
  stop_server
fi
