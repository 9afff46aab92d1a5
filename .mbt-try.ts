import { findModel } from '/work/wt/mbt/models/registry.ts';
import { resolveParams } from '/work/wt/mbt/checker/params.ts';
import { runMbt, undrivenActions } from '/work/wt/mbt/verify/mbt/mbt.ts';
import { randomWalks, drivableBy } from '/work/wt/mbt/verify/mbt/schedules.ts';
const name = process.argv[2]!; const walks = Number(process.argv[3]); const depth = Number(process.argv[4]);
const faults = process.argv[5] ? { [process.argv[5]]: true } : {};
const def = findModel(name)!;
const params = resolveParams(def, undefined, JSON.parse(process.argv[6] ?? '{}'));
const model = def.create(params);
const target = { name, params, model, faults };
const t = Date.now();
const out = await runMbt(target, randomWalks(model, drivableBy(undrivenActions(target)), { walks, depth, seed: 1 }));
const s = (Date.now() - t) / 1000;
console.log(out.result, out.schedules, out.steps, `${s}s`, `${Math.round(out.steps / s * 60)} steps/min`);
if (out.result === 'diverged') { console.log(out.found, '->', out.trace.steps.length, out.step, out.reason); for (const st of out.trace.steps) console.log('  ', st.label); }
