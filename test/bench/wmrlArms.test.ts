import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ALL_ARMS,
  EXTRA_ARMS,
  LONG_ARMS,
  REAL_ONLY,
  SHORT_ARMS,
  armColour,
  armFlags,
  armLabel,
  armRobotTimeCounted,
  armWorldModel,
  armWorldModelData,
  armWorldModelFolder,
  runName,
} from '../../bench/wmrlArms.ts';
import { FAMILIES, isWorldModelData } from '../../bench/benchFamilies.ts';

test('benchmark arms: ablations take their part away from the headline arm, in runs named after it', () => {
  for (const arm of [...ALL_ARMS, ...EXTRA_ARMS]) assert.ok(Array.isArray(armFlags(arm, 'wmrl')), arm);
  // Against the quickstart (reach's headline) an ablation is its own flags, in the run folder it always had.
  assert.deepEqual(armFlags('no-debias', 'wmrl'), ['--no-debias']);
  assert.equal(runName('no-debias', 'wmrl'), 'no-debias');
  // Against pick's headline it starts from that arm's flags, and its runs are kept apart.
  const bound = ['--imaginedWeight=trust', '--trust.confidence=1.645'];
  assert.deepEqual(armFlags('wmrl-trust-bound', 'wmrl-trust-bound'), bound);
  assert.deepEqual(armFlags('no-debias', 'wmrl-trust-bound'), [...bound, '--no-debias']);
  assert.equal(runName('no-debias', 'wmrl-trust-bound'), 'no-debias-of-wmrl-trust-bound');
  // Arms that are not ablations never change with the headline.
  assert.deepEqual(armFlags('real', 'wmrl-trust-bound'), REAL_ONLY);
  assert.equal(runName('anchors-only', 'wmrl-trust-bound'), 'anchors-only');
  // An ablation as the headline is itself, not itself twice.
  assert.deepEqual(armFlags('trust', 'trust'), ['--imaginedWeight=trust']);
  assert.equal(runName('trust', 'trust'), 'trust');
  assert.throws(() => armFlags('no-such-arm', 'wmrl'), /no benchmark arm 'no-such-arm'/);
});

test('benchmark arms: the lists and plot names the benchmark reads come from one record per arm', () => {
  assert.deepEqual(ALL_ARMS.slice(0, 4), ['real', 'wmrl', 'wmrl-demos-only-warm16', 'anchors-only']);
  assert.ok(!ALL_ARMS.includes('real-g2') && EXTRA_ARMS.includes('real-g2'));
  assert.equal(new Set([...ALL_ARMS, ...EXTRA_ARMS]).size, ALL_ARMS.length + EXTRA_ARMS.length);
  // The real2 arm runs the long arms' 28 steps; real8 the baseline's 12 (each step after its stop costs real-only's).
  assert.ok(LONG_ARMS.has('wmrl-branch-kl-limit-real2') && !LONG_ARMS.has('wmrl-branch-kl-limit-real8'));
  // Arms with a step count of their own: real-only evaluated every step, the grasp arm observed for 56 steps.
  assert.deepEqual(SHORT_ARMS, {
    'real-every-step': 4,
    'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-56': 56,
  });
  assert.equal(armLabel('real'), 'real-only GRPO (G = 8)');
  assert.equal(armLabel('wmrl-branch-h8'), 'wmrl-branch-h8');
  assert.equal(armColour('real'), '#d62728');
  assert.equal(armColour('wmrl-branch-h8'), undefined);
});

test('benchmark arms: an arm with a world-model preset of its own imagines with it, and so do its ablations', () => {
  const value = 'wmrl-branch-kl-limit-real2-value';
  assert.equal(armWorldModel(value, 'wmrl'), 'configs/wm/perception-outcome.yaml');
  // It differs from the real2 arm only in its world model.
  assert.deepEqual(armFlags(value, 'wmrl'), armFlags('wmrl-branch-kl-limit-real2', 'wmrl'));
  assert.equal(armWorldModel('wmrl-branch-kl-limit-real2', 'wmrl'), undefined);
  assert.equal(armWorldModel('no-debias', value), 'configs/wm/perception-outcome.yaml');
  assert.equal(armWorldModel('no-debias', 'wmrl'), undefined);
  assert.equal(armWorldModel('real', value), undefined, 'real-only GRPO never imagines');
  // On reach the quickstart's own value-head arm.
  assert.deepEqual(
    [armFlags('wmrl-value', 'wmrl'), armWorldModel('wmrl-value', 'wmrl')],
    [[], armWorldModel(value, 'wmrl')],
  );
});

test("benchmark arms: each world model has its own cache folder: its preset's and its state's goal", () => {
  // The quickstart's world model holds the localised goal; so do its ablations, but the one taking it away.
  assert.equal(armWorldModelFolder('wmrl', 'wmrl'), 'worldmodel-goal-localised');
  assert.equal(armWorldModelFolder('no-debias', 'wmrl'), 'worldmodel-goal-localised');
  assert.deepEqual(armFlags('no-goal', 'wmrl'), ['--worldModel.goal=none']);
  assert.equal(armWorldModelFolder('no-goal', 'wmrl'), 'worldmodel');
  assert.equal(armWorldModelFolder('wmrl-value', 'wmrl'), 'worldmodel-perception-outcome-goal-localised');
  // A family whose flags leave the goal out (pick) shares a model without it, unless an arm asks for one.
  const pick = FAMILIES.pick!.train;
  assert.equal(armWorldModelFolder('wmrl', 'wmrl', pick), 'worldmodel');
  assert.equal(armWorldModelFolder('wmrl-goal', 'wmrl', pick), 'worldmodel-goal-localised');
  // Goals learned from the demonstrations' gripper: a localiser of its own, so a model of its own.
  assert.equal(armWorldModelFolder('wmrl-goal-gripper', 'wmrl'), 'worldmodel-goal-localised-from-gripper');
  // The privileged-goal probe's state holds another goal: never the shared model; its ablations use its own.
  assert.deepEqual(armFlags('wmrl-privileged-goal', 'wmrl'), ['--worldModel.goal=privileged']);
  assert.equal(armWorldModelFolder('wmrl-privileged-goal', 'wmrl'), 'worldmodel-goal-privileged');
  assert.equal(armWorldModelFolder('no-debias', 'wmrl-privileged-goal', pick), 'worldmodel-goal-privileged');
});

test('benchmark arms: the perfect-world-model ceiling runs all 32 groups and counts one group of robot time', () => {
  // Its stand-in for imagination runs in the simulator: only the anchor group, 1 of 32, is robot time.
  assert.deepEqual(armFlags('perfect-wm', 'wmrl'), [...REAL_ONLY, '--groups=32']);
  assert.equal(armRobotTimeCounted('perfect-wm'), 1 / 32);
  assert.equal(armRobotTimeCounted('perfect-wm-cut16'), 1 / 32);
  assert.ok(
    EXTRA_ARMS.includes('perfect-wm') && !ALL_ARMS.includes('perfect-wm'),
    'a probe, never in the full benchmark',
  );
  // Every method arm counts all of its executed robot time.
  for (const arm of ALL_ARMS) assert.equal(armRobotTimeCounted(arm), 1, arm);
  assert.equal(armRobotTimeCounted('wmrl-cut16'), 1);
});

test("benchmark arms: an arm's world model learns from the world-model data it names, in a folder of its own", () => {
  // By default the family's noisy experts; the demonstrations alone, or reach's own few noisy experts.
  assert.deepEqual(armWorldModelData('wmrl', 'wmrl'), ['mixed']);
  assert.deepEqual(armWorldModelData('no-debias', 'wmrl'), ['mixed']);
  assert.deepEqual(armWorldModelData('wmrl-demos-only', 'wmrl'), []);
  assert.deepEqual(armWorldModelData('wmrl-reach-data40', 'wmrl'), ['mixed-reach-a', 'mixed-reach-b']);
  // An ablation of a headline with data of its own learns from that data too.
  assert.deepEqual(armWorldModelData('no-debias', 'wmrl-demos-only'), []);
  assert.equal(armWorldModelFolder('wmrl', 'wmrl'), 'worldmodel-goal-localised');
  assert.equal(armWorldModelFolder('wmrl-demos-only', 'wmrl'), 'worldmodel-goal-localised-demos-only');
  assert.equal(armWorldModelFolder('wmrl-reach-data20', 'wmrl'), 'worldmodel-goal-localised-data-mixed-reach-a');
  // Every folder an arm names is world-model data (never cloned) that reach's set-up collects.
  for (const arm of [...ALL_ARMS, ...EXTRA_ARMS])
    for (const folder of armWorldModelData(arm, 'wmrl')) {
      assert.ok(isWorldModelData(folder), `${arm}: ${folder}`);
      assert.ok(folder in FAMILIES.reach!.data, `${arm}: ${folder}`);
    }
  assert.ok(!isWorldModelData('demos') && !isWorldModelData('reach-demos'));
});
