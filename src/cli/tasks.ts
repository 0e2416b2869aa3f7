/** `wmrl tasks`: the task families, their instructions and which split each belongs to. */
import { parseFlags } from './args.ts';
import { COLOR_NAMES } from '../tasks/vocabulary.ts';
import { FAMILIES, TASK_FAMILIES } from '../tasks/families.ts';
import { enumerateInstructions } from '../tasks/splits.ts';

export const command = {
  summary: 'list task families, instruction templates, colours and the train/test split',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      console.log('usage: wmrl tasks [--json]\n\nLists every family × colour × template and its split.');
      return 0;
    }
    const rows = enumerateInstructions();
    if (values.json) {
      console.log(JSON.stringify({ families: FAMILIES, colors: COLOR_NAMES, instructions: rows }, null, 2));
      return 0;
    }
    for (const family of TASK_FAMILIES) {
      const def = FAMILIES[family];
      console.log(`${family}  (horizon ${def.horizon} ticks; objects: ${def.objects.join(', ')})`);
      def.templates.forEach((t, i) =>
        console.log(`  template ${i}${i === def.templates.length - 1 ? ' [test only]' : ''}: ${t}`),
      );
      console.log(`  colours held out for test: ${def.heldOutColors.join(', ')}`);
      const mine = rows.filter((r) => r.family === family);
      const train = mine.filter((r) => r.split === 'train').length;
      console.log(`  ${train} train / ${mine.length - train} test combinations (colour × template)\n`);
    }
    console.log(`colours: ${COLOR_NAMES.join(', ')}`);
    console.log(
      `select tasks with --task family[:colour[:object|zone]], e.g. pick, reach:red:ball, push:blue:green, all`,
    );
    return 0;
  },
};
