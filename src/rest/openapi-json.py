#!/usr/bin/env python3
# docs/openapi.yaml -> openapi.json, compact, for GET /openapi.json (src/ui/local.mk
# compiles it into the resource src/rest/api_ui.c serves).
# Fails on anything JSON cannot say (a YAML date, a non-string key other than a
# status code), so the two forms served never differ.
import json
import sys

import yaml

with open(sys.argv[1], encoding="utf-8") as f:
    doc = yaml.safe_load(f)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump(doc, out, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    out.write("\n")
