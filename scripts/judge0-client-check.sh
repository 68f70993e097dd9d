#!/usr/bin/env bash
# Runs a Judge0 client that nobody in this project wrote — the npm package judge0-client
# (TypeScript, github.com/sebbev/judge0-client), unchanged — against oj's Judge0 face:
# only its base URL and token are oj's. It installs the package into a temporary
# directory, submits a Python A+B through it (polling, as Judge0's clients do) and a
# C++ one with wait=true, and checks the statuses and outputs it reads back.
#
#   scripts/judge0-client-check.sh BASE_URL TOKEN     e.g. http://127.0.0.1:8080/judge0
#
# Exit 0: the client worked; 1: it did not; 77: it could not be tried (no npm, or the
# registry does not have the package), with the reason on the last line.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BASE_URL TOKEN" >&2; exit 2; }
url=$1 token=$2
pkg=${JUDGE0_CLIENT_PKG:-judge0-client}
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	echo "skip: npm and node are needed"
	exit 77
fi
if ! version=$(npm view "$pkg" version 2>/dev/null); then
	echo "skip: the npm registry this machine reaches has no package $pkg"
	exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$pkg@$version" >/dev/null
cat >check.mjs <<'JS'
import { Judge0Client } from "judge0-client";

const [url, token] = process.argv.slice(2);
const judge0 = new Judge0Client({ baseUrl: url, authenticationToken: token });
const fail = (msg, v) => { console.error(`FAIL ${msg}: ${JSON.stringify(v)}`); process.exit(1); };
const data = (r, what) => {
	if (!r || r.error || !r.data) fail(what, r);
	return r.data;
};

const created = data(await judge0.submissions.createAsync({
	sourceCode: "a, b = map(int, input().split())\nprint(a + b)\n", languageId: 71, stdin: "2 40", expectedOutput: "42",
}), "create");
let sub;
for (let i = 0; i < 600; i++) {
	sub = data(await judge0.submissions.getAsync(created.token), "get");
	if (sub.status && sub.status.id > 2) break;
	await new Promise((r) => setTimeout(r, 100));
}
if (sub.status.id !== 3 || sub.stdout !== "42\n") fail("python A+B", sub);

const waited = data(await judge0.submissions.createAsync({
	sourceCode: "#include <cstdio>\nint main(){int a,b;scanf(\"%d %d\",&a,&b);printf(\"%d\\n\",a+b);}\n",
	languageId: 54, stdin: "20 22", expectedOutput: "41",
}, true, true), "create with wait");
if (!waited.status || waited.status.id !== 4) fail("C++ wrong answer with wait=true, base64", waited);
console.log(`ok: ${process.env.npm_package_name || "judge0-client"} created, polled and waited on oj's Judge0 face`);
JS
node check.mjs "$url" "$token"
