/** `wmrl tasks`: the task families, their instructions and which split each belongs to. */
import { parseFlags } from './args.ts';
import { COLOR_NAMES } from '../tasks/vocabulary.ts';
import { familyDef, taskFamilies } from '../tasks/families.ts';
import { enumerateInstructions } from '../tasks/splits.ts';

export const command = {
  summary: 'list task families, instruction templates, colours and the train/test split',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      console.log(
        'usage: wmrl tasks [--task-file PATH] [--json]\n\nLists every family × colour × template and its split.\n\n' +
          '  --task-file PATH   a task family file (YAML), or a folder of them, to add (docs/tasks.md); repeatable',
      );
      return 0;
    }
    const rows = enumerateInstructions();
    const families = taskFamilies().map(familyDef);
    if (values.json) {
      console.log(JSON.stringify({ families, colors: COLOR_NAMES, instructions: rows }, null, 2));
      return 0;
    }
    for (const def of families) {
      const what = def.scene ? `objects: ${def.scene.objects.join(', ')}` : 'fixed texts, no simulated scene';
      console.log(`${def.name}  (${def.seconds} s; ${what}; ${def.file})`);
      def.templates.forEach((t, i) =>
        console.log(`  template ${i}${def.heldOutTemplates.includes(i) ? ' [test only]' : ''}: ${t}`),
      );
      if (def.heldOutColors.length > 0) console.log(`  colours held out for test: ${def.heldOutColors.join(', ')}`);
      const mine = rows.filter((r) => r.family === def.name);
      const train = mine.filter((r) => r.split === 'train').length;
      console.log(`  ${train} train / ${mine.length - train} test instructions\n`);
    }
    console.log(`colours: ${COLOR_NAMES.join(', ')}`);
    console.log(
      `select tasks with --task family[:colour[:object|zone]], e.g. pick, reach:red:ball, push:blue:green, all`,
    );
    return 0;
  },
};
