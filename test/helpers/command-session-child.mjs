// One Node process that runs `hcas` command lines one after another for a test (test/helpers/command-session.ts):
// the package's compiled main and command table, as bin/hcas.js loads them, imported once. Each request (over
// the IPC channel) names the arguments, the working directory, the environment changes and the file that takes
// the command's output; the answer is the exit status and what the command wrote to stderr. Anything written to
// this process's own stdout or stderr is a command bypassing its CommandIo: the parent reports it.
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

const dist = pathToFileURL(`${path.join(process.argv[2], 'dist')}/`);
const load = (file) => import(new URL(file, dist).href);
const [{ main }, { PRODUCER_COMMANDS }, { PIPELINE_COMMANDS }, { API_COMMANDS }] = await Promise.all([
  load('src/cli/main.js'),
  load('producers/cli/index.js'),
  load('pipeline/cli/index.js'),
  load('src/cli/commands/index.js'),
]);
const commands = [...PRODUCER_COMMANDS, ...PIPELINE_COMMANDS, ...API_COMMANDS];
const startEnv = { ...process.env };

/** Runs one command line; the caller waits for its answer before sending the next (the working directory is shared). */
async function run({ args, cwd, env, out }) {
  process.chdir(cwd);
  const commandEnv = { ...startEnv };
  for (const [name, value] of Object.entries(env)) {
    if (value === null) delete commandEnv[name];
    else commandEnv[name] = value;
  }
  const stdout = createWriteStream(out);
  let stderr = '';
  const notes = new Writable({
    write(chunk, _encoding, done) {
      stderr += chunk.toString('utf8');
      done();
    },
  });
  let code;
  try {
    code = await main([process.execPath, 'hcas', ...args], commands, { stdout, stderr: notes, env: commandEnv });
  } catch (error) {
    // main answers every failure with a status; one that escapes it is a bug the test must show.
    code = 70;
    stderr += `escaped main: ${error instanceof Error ? error.stack : String(error)}\n`;
  }
  stdout.end();
  await finished(stdout);
  return { code, stderr };
}

process.on('message', (request) => {
  run(request).then(
    (answer) => process.send(answer),
    (error) => process.send({ code: 70, stderr: `runner failed: ${error instanceof Error ? error.stack : String(error)}\n` }),
  );
});
process.send({ ready: true });
