// Validates glTF files with the Khronos glTF validator (npm gltf-validator):
// node validate.js FILE... prints one JSON line per file with its error and
// warning counts and their messages, and exits 1 if any file has an error.
const fs = require('fs');
const validator = require('gltf-validator');
(async () => {
  let failed = false;
  for (const f of process.argv.slice(2)) {
    const r = await validator.validateBytes(new Uint8Array(fs.readFileSync(f)), { maxIssues: 20 });
    const msgs = r.issues.messages.filter((m) => m.severity <= 1).map((m) => `${m.code} ${m.pointer || ''}: ${m.message}`);
    console.log(JSON.stringify({ file: f, errors: r.issues.numErrors, warnings: r.issues.numWarnings, messages: msgs }));
    if (r.issues.numErrors > 0) failed = true;
  }
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(2); });
