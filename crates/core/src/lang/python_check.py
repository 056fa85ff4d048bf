# The syntax check of the Python entries of languages.toml ({python_check} there): decodes the
# source as Python will when it runs it (UTF-8, or the encoding declared on line 1 or 2 by PEP
# 263), strictly (`compile()` of bytes lets bad bytes in comments through, which would then fail
# on every test), then compiles it. Runs with `-S -c`; the source's path is its one argument.
import re, sys, tokenize, traceback
path = sys.argv[1]
data = open(path, "rb").read()
lines = iter(data.splitlines(True))
try:
    encoding = tokenize.detect_encoding(lambda: next(lines, b""))[0]
except SyntaxError as e:
    if "invalid or missing encoding" not in e.msg:
        sys.exit("%s:1:1: error: %s\n  hint: declare an encoding Python knows (PEP 263), "
                 "or remove the declaration and save the file as UTF-8" % (path, e.msg))
    encoding = "utf-8"
try:
    text = data.decode(encoding)
except UnicodeDecodeError as e:
    at = e.start + (3 if encoding == "utf-8-sig" else 0)
    declared = any(re.match(rb"[ \t\f]*#.*?coding[:=]", l) for l in data.splitlines()[:2])
    sys.exit("%s:%d:%d: error: byte 0x%02x is not valid %s (%s)\n  hint: save the file as "
             "UTF-8, or declare its real encoding on line 1 or 2 (PEP 263), e.g. "
             "`# -*- coding: latin-1 -*-`" % (
                 path, data.count(b"\n", 0, at) + 1, at - data.rfind(b"\n", 0, at), data[at],
                 "UTF-8" if encoding.startswith("utf-8") else encoding,
                 "the encoding the file declares" if declared else
                 "Python reads source files as UTF-8 unless they declare another encoding"))
try:
    compile(text, path, "exec", dont_inherit=True)
except SyntaxError as e:
    sys.exit("".join(traceback.format_exception_only(type(e), e)).rstrip())
except ValueError as e:
    at = data.find(b"\0")
    sys.exit("%s:%d:1: error: %s" % (path, data.count(b"\n", 0, max(at, 0)) + 1, e))
