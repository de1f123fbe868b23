#!/usr/bin/env bash
# Runs Triton's own qa/L0_shared_memory/shared_memory_test.py against infernode as its test.sh
# does (each test on a fresh server, once with CLIENT_TYPE=http and once with grpc; the first test
# without --allow-client-shm, the rest with it; the unregister-during-inference tests on a model
# that answers after 15 s), then the client's examples simple_{http,grpc}_shm_client.py and
# simple_{http,grpc}_shm_string_client.py. Prints one line per test: ok, FAIL or ERROR. Only host,
# ports and model repositories are adapted: scripts/triton-qa/l0-shm-repository.ts builds the
# models (JavaScript ones where Triton's QA uses Python models). test_large_shm_register_offset runs
# with BACKENDS="python onnx" (test.sh's other backends do not exist here). Not part of CI: it
# needs Triton's sources and Python client, neither of which is in this repository. See
# docs/compatibility.md ("Triton's own shared-memory tests").
#
#   npm run build
#   TRITON_SERVER_GIT=/path/to/server.git TRITON_CLIENT_PY=/path/to/client/src/python/library \
#     TRITON_CLIENT_EXAMPLES=/path/to/client/src/python/examples \
#     scripts/triton-qa/run-l0-shm.sh [uws|node]
#
# Needs python3 with numpy, requests, psutil, geventhttpclient, rapidjson, packaging, grpcio and
# protobuf (EXTRA_PYTHONPATH may point at a directory holding any of them). The client's
# tritonclient.utils.shared_memory is pure Python (multiprocessing.shared_memory): no C library to
# build. tritonclient.grpc needs service_pb2, service_pb2_grpc and model_config_pb2 beside it; the
# client's build generates them from Triton's protos (schemas/triton here), for example:
#   python3 -m grpc_tools.protoc -Ischemas/triton --python_out=G --grpc_python_out=G \
#     schemas/triton/grpc_service.proto schemas/triton/model_config.proto
# then copy G/grpc_service_pb2.py as service_pb2.py, G/grpc_service_pb2_grpc.py as
# service_pb2_grpc.py and G/model_config_pb2.py into tritonclient/grpc/, and rewrite their
# `import X_pb2` lines to `from tritonclient.grpc import X_pb2` as the client's build_wheel.py does.
# Without those files the gRPC variants fail at import and say so.
set -uo pipefail

FRONT_END="${1:-uws}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TRITON_SERVER_GIT="${TRITON_SERVER_GIT:?set TRITON_SERVER_GIT to a git directory of Triton's server repository}"
TRITON_CLIENT_PY="${TRITON_CLIENT_PY:?set TRITON_CLIENT_PY to Triton's client src/python/library}"
TRITON_CLIENT_EXAMPLES="${TRITON_CLIENT_EXAMPLES:-$TRITON_CLIENT_PY/../examples}"
PORT="${PORT:-18600}"
WORK="${WORK:-/tmp/infernode-l0-shm-$FRONT_END}"
PYTHON="${PYTHON:-python3}"

rm -rf "$WORK" && mkdir -p "$WORK/src"
git --git-dir="$TRITON_SERVER_GIT" archive HEAD qa/L0_shared_memory qa/common | tar -x -C "$WORK/src"
TESTS="$WORK/src/qa/L0_shared_memory"
# The one adaptation: Triton's address. Models keep their names.
sed -i "s/localhost:8000/localhost:$PORT/g; s/localhost:8001/localhost:$((PORT + 1))/g" "$TESTS"/*.py
export PYTHONPATH="$TRITON_CLIENT_PY:$WORK/src/qa/common${EXTRA_PYTHONPATH:+:$EXTRA_PYTHONPATH}"
node "$ROOT/dist/scripts/triton-qa/l0-shm-repository.js" "$WORK/repo"

SERVER_PID=0
start_server() { # args: log name, then server flags
  local log="$WORK/server-$1.log"
  shift
  node "$ROOT/dist/src/cli/main.js" --http-front-end "$FRONT_END" --http-port "$PORT" \
    --grpc-port $((PORT + 1)) --metrics-port $((PORT + 2)) "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 120); do
    if grep -q '"msg":"serving HTTP' "$log" 2>/dev/null; then return 0; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "server failed to start: $log" >&2
      SERVER_PID=0
      return 1
    fi
    sleep 0.5
  done
  return 1
}
stop_server() { # test.sh fails a server that does not shut down cleanly; so does this
  if [ "$SERVER_PID" != 0 ]; then
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null
    local rc=$?
    [ "$rc" = 0 ] || echo "server exited with status $rc on SIGTERM (test.sh: shut down non-gracefully)"
  fi
  SERVER_PID=0
}
trap stop_server EXIT

run_test() { # args: client type, unittest name; prints "<name> <client type> ok|FAIL|ERROR"
  local log="$WORK/$2.$1.log"
  (cd "$TESTS" && CLIENT_TYPE="$1" BACKENDS="python onnx" timeout 300 "$PYTHON" shared_memory_test.py -v "$2" >"$log" 2>&1)
  local verdict
  verdict=$(grep -oE '^(FAIL|ERROR): ' "$log" | head -n 1 | cut -d: -f1)
  if grep -q -E '^OK' "$log"; then
    echo "${2#*.} $1 ok"
  else
    echo "${2#*.} $1 ${verdict:-ERROR}: $(grep -m 1 -E '^[A-Za-z_.]*(Error|Exception): ' "$log" | cut -c 1-300)"
  fi
}

MODELS="$WORK/repo/models"
DELAYED="$WORK/repo/python_models"

echo "== shared_memory_test.py, without --allow-client-shm"
for client in http grpc; do
  start_server "disabled.$client" --model-repository "$MODELS" --log-verbose=1
  run_test "$client" SharedMemoryTest.test_client_shm_disabled_by_default
  stop_server
done

echo "== shared_memory_test.py, --allow-client-shm=true"
for t in test_invalid_create_shm test_valid_create_set_register test_unregister_before_register \
  test_unregister_after_register test_reregister_after_register test_unregister_after_inference \
  test_register_after_inference test_too_big_shm test_mixed_raw_shm test_unregisterall \
  test_infer_offset_out_of_bound test_infer_byte_size_out_of_bound test_infer_integer_overflow \
  test_register_out_of_bound test_register_reserved_names test_register_invalid_shm_key \
  test_python_client_leak test_large_shm_register_offset; do
  for client in http grpc; do
    start_server "$t.$client" --model-repository "$MODELS" --log-verbose=1 --allow-client-shm=true
    run_test "$client" "SharedMemoryTest.$t"
    stop_server
  done
done

echo "== shared_memory_test.py, unregister during inference (a model that answers after 15 s)"
for t in test_unregister_shm_during_inference_single_req test_unregister_shm_during_inference_multiple_req \
  test_unregister_shm_after_inference; do
  for client in http grpc; do
    start_server "$t.$client" --model-repository "$DELAYED" --log-verbose=1 --allow-client-shm=true
    run_test "$client" "TestSharedMemoryUnregister.${t}_$client"
    stop_server
  done
done

echo "== client examples"
start_server examples --model-repository "$MODELS" --allow-client-shm=true
for example in simple_http_shm_client simple_grpc_shm_client simple_http_shm_string_client \
  simple_grpc_shm_string_client; do
  url="localhost:$PORT"
  [[ "$example" == *grpc* ]] && url="localhost:$((PORT + 1))"
  log="$WORK/$example.log"
  if (cd "$TRITON_CLIENT_EXAMPLES" && timeout 120 "$PYTHON" "$example.py" -u "$url" >"$log" 2>&1); then
    echo "$example.py ok"
  else
    echo "$example.py FAIL: $(tail -n 1 "$log" | cut -c 1-300)"
  fi
done
stop_server
