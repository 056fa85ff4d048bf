"""The official Judge0 Python client (`pip install judge0`) against `judge serve`'s Judge0 API,
used as the client's own documentation shows for a self-hosted Judge0: the base URL and the
auth header come from JUDGE0_CE_ENDPOINT and JUDGE0_CE_AUTH_HEADERS (a JSON object).

Run by tests/judge/judge0.rs; by hand:
  JUDGE0_CE_ENDPOINT=http://127.0.0.1:PORT/judge0 \
  JUDGE0_CE_AUTH_HEADERS='{"X-Auth-Token": "TOKEN"}' python3 tests/judge0_client.py
"""

import json
import os

import judge0

# The implicit client, found from the environment as the client's README describes.
result = judge0.run(source_code="print('hello from python')", language=judge0.PYTHON)
print(result.status, result.stdout.strip())

# An explicit client on the same server: judge0.Client(endpoint, headers).
client = judge0.Client(
    os.environ["JUDGE0_CE_ENDPOINT"], json.loads(os.environ["JUDGE0_CE_AUTH_HEADERS"])
)
c_source = '#include <stdio.h>\nint main(void) { printf("hello, world\\n"); return 0; }\n'
result = judge0.run(client=client, source_code=c_source, language=judge0.C)
print(result.status, result.stdout.strip())

# Test cases with expected outputs: sent and read back as batches.
results = judge0.run(
    client=client,
    source_code="print(input())",
    language=judge0.PYTHON,
    test_cases=[("1", "2"), ("3", "3")],
)
for r in results:
    print(r.status, r.stdout.strip())

result = judge0.run(client=client, source_code="int main( {", language=judge0.C)
assert "error" in result.compile_output, result.compile_output
print(result.status)
print("ok")
