// Validates glTF files with the Khronos glTF validator; exits 1 when any has an error or a
// warning (infos and hints are printed but allowed). Usage: node validate.js FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function main(files) {
  let bad = 0;
  for (const file of files) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 0,
    });
    const i = report.issues;
    console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ` +
                `${i.numHints} hints`);
    for (const m of i.messages) {
      console.log(`  [${['error', 'warning', 'info', 'hint'][m.severity]}] ${m.code}: ${m.message}` +
                  (m.pointer ? ` (${m.pointer})` : ''));
    }
    if (i.numErrors > 0 || i.numWarnings > 0) bad += 1;
  }
  return bad;
}

main(process.argv.slice(2)).then(
    (bad) => process.exit(bad === 0 ? 0 : 1),
    (err) => {
      console.error(`error: ${err}`);
      process.exit(2);
    });
