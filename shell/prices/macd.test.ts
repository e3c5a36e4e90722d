/**
 * MACD against values computed independently: the Python script below (plain floats, written apart from
 * macd.ts) printed the closes and the expected series pasted here. A TA-Lib run gives the same numbers under
 * this convention. Rerun it with `python3` to check:
 *
 * # Independent MACD reference (TA-Lib convention), plain Python floats.
 * import math, json
 * def ema_seeded(values, period, start):
 *     # first value at index `start`, seeded by the mean of values[start-period+1 .. start]
 *     k = 2.0/(period+1)
 *     out = {}
 *     e = sum(values[start-period+1:start+1])/period
 *     out[start] = e
 *     for i in range(start+1, len(values)):
 *         e = e + k*(values[i]-e)
 *         out[i] = e
 *     return out
 * def macd(closes, fast, slow, sig):
 *     f = ema_seeded(closes, fast, slow-1)
 *     s = ema_seeded(closes, slow, slow-1)
 *     m = [f[i]-s[i] for i in range(slow-1, len(closes))]
 *     sg = ema_seeded(m, sig, sig-1)
 *     return [(m[i], sg[i], m[i]-sg[i]) for i in range(sig-1, len(m))]
 * closes = [round(100 + 10*math.sin(i/5) + i*0.3, 6) for i in range(60)]
 * print(json.dumps(closes))
 * print(json.dumps(macd(closes, 12, 26, 9)))
 * print(json.dumps(macd(closes, 5, 13, 4)))
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeMacd, macdInputProblem, macdSeries, type DailyClose } from './macd.ts';

const closes: number[] = [100.0, 102.286693, 104.494183, 106.546425, 108.373561, 109.91471, 111.120391, 111.954497, 112.395736, 112.438476, 112.092974, 111.384964, 110.354632, 109.055014, 107.549882, 105.9112, 104.216259, 102.544589, 100.974796, 99.581421, 98.431975, 97.584242, 97.083979, 96.96309, 97.238354, 97.910757, 98.965453, 100.372355, 102.087334, 104.053978, 106.205845, 108.469106, 110.765492, 113.015414, 115.141134, 117.069866, 118.736679, 120.087081, 121.079197, 121.685433, 121.893582, 121.707306, 121.145989, 120.243971, 119.049172, 117.621185, 116.028899, 114.347754, 112.656732, 111.035209, 109.559789, 108.301253, 107.321735, 106.672246, 106.390638, 106.500098, 107.008223, 107.906715, 109.171714, 110.764749];

/** [macd, signal, histogram] from index slow + signal - 2 on, periods 12/26/9. */
const expectedDefault: Array<[number, number, number]> = [
  [-0.09515043456025296, -2.655372199296235, 2.560221764735982],
  [0.682836339626931, -1.9877304915116016, 2.6705668311385327],
  [1.4384474893220016, -1.302494895344881, 2.740942384666883],
  [2.1470231024526356, -0.6125912957853775, 2.7596143982380132],
  [2.785431812427319, 0.06701332585716191, 2.7184184865701573],
  [3.3330099206704347, 0.7202126448198165, 2.6127972758506184],
  [3.772401795554117, 1.3306504749666768, 2.44175132058744],
  [4.090268833761513, 1.882574146725644, 2.207694687035869],
  [4.277837586388273, 2.36162683465817, 1.916210751730103],
  [4.331265451421899, 2.7555545580109158, 1.5757108934109834],
  [4.2518098875431605, 3.054805623917365, 1.1970042636257956],
  [4.045793102310029, 3.2530031195958977, 0.7927899827141309],
  [3.7243645429130083, 3.34727540425932, 0.3770891386536883],
  [3.3030701839220455, 3.338434360191865, -0.03536417626981958],
  [2.8012459974314226, 3.2309966876397764, -0.4297506902083539],
  [2.2412595265634963, 3.0330492554245203, -0.7917897288610241],
  [1.6476300063499991, 2.755965405609616, -1.1083353992596168],
  [1.046061920640284, 2.4139847086157493, -1.3679227879754654],
  [0.46243092561824994, 2.0236739520162494, -1.5612430263979995],
  [-0.07823788159977596, 1.6032915852930443, -1.6815294668928202],
  [-0.5527582874646271, 1.17208161074151, -1.724839898206137],
  [-0.9406987503221131, 0.7495255385287853, -1.6902242888508985],
  [-1.2251886428705916, 0.3545827022489099, -1.5797713451195015],
  [-1.3935831325553494, 0.004949535288058027, -1.3985326678434074],
  [-1.437960272535662, -0.28363242627668594, -1.154327846258976],
  [-1.3554300742577112, -0.497991955872891, -0.8574381183848202],
  [-1.1482434508290424, -0.6280422548641214, -0.5202011959649211],
];

/** The same for periods 5/13/4. */
const expectedShort: Array<[number, number, number]> = [
  [0.25569383552866043, 1.6230329714933696, -1.3673391359647091],
  [-0.5903435991764923, 0.7376823432254248, -1.3280259424019172],
  [-1.3640952952376892, -0.1030287121598209, -1.2610665830778682],
  [-2.0402903932137235, -0.8779333845813819, -1.1623570086323416],
  [-2.5949356685708125, -1.5647342981771541, -1.0302013703936583],
  [-3.00724955598578, -2.1417404013006047, -0.8655091546851752],
  [-3.2611280842235715, -2.5894954744697913, -0.6716326097537801],
  [-3.3461979058726143, -2.892176447030921, -0.45402145884169354],
  [-3.2584929512971854, -3.0387030487374265, -0.21978990255975894],
  [-3.0007782652875505, -3.023533135357476, 0.02275487006992538],
  [-2.5825417654112073, -2.8471365873789685, 0.2645948219677612],
  [-2.019676824271812, -2.5161526821361058, 0.4964758578642936],
  [-1.3338832948458759, -2.0432449272200137, 0.7093616323741379],
  [-0.55182035922887, -1.446675100023556, 0.8948547407946861],
  [0.29594876394412495, -0.7496255544364836, 1.0455743183806085],
  [1.1761748931885023, 0.020694624613510793, 1.1554802685749914],
  [2.0542502578429804, 0.8341168779052986, 1.220133379937682],
  [2.8955930253673046, 1.658707336890101, 1.2368856884772035],
  [3.6670315103636995, 2.4620370062795405, 1.204994504084159],
  [4.338132001296714, 3.21247500428641, 1.1256569970103039],
  [4.882417805577646, 3.880452124802904, 1.0019656807747417],
  [5.278430369663042, 4.4396434227469594, 0.8387869469160822],
  [5.510588864870755, 4.868021599596478, 0.6425672652742769],
  [5.569816344757498, 5.148739497660886, 0.42107684709661264],
  [5.453904793037665, 5.2708056158115975, 0.18309917722606794],
  [5.167607297148336, 5.229526288346293, -0.06191899119795696],
  [4.722451047252136, 5.026696191908631, -0.30424514465649466],
  [4.136279902204208, 4.670529676026861, -0.534249773822653],
  [3.4325463001670897, 4.175336325682952, -0.7427900255158626],
  [2.639377465661738, 3.560952781674467, -0.9215753160127287],
  [1.7884559666271684, 2.8519540556555474, -1.063498089028379],
  [0.9137579687680244, 2.076675620900538, -1.1629176521325135],
  [0.05020016195480537, 1.266085437322245, -1.2158852753674396],
  [-0.7677513544124963, 0.45255072062834845, -1.2203020750408449],
  [-1.5074541564122654, -0.33145123018789724, -1.1760029262243683],
  [-2.139390321535359, -1.054626866726882, -1.0847634548084768],
  [-2.638342114865921, -1.6881129659824978, -0.9502291488834231],
  [-2.9843969436802382, -2.206626557061594, -0.7777703866186441],
  [-3.16374061044651, -2.5894721784155603, -0.5742684320309497],
  [-3.169208010005974, -2.8213665110517256, -0.34784149895424843],
  [-3.000568047372994, -2.893047125580233, -0.10752092179276085],
  [-2.664532447422104, -2.8016412543169813, 0.13710880689487714],
  [-2.1744882737634015, -2.550780062095549, 0.3762917883321477],
  [-1.5499637805411197, -2.1504535494737773, 0.6004897689326576],
  [-0.8158496043883332, -1.6166119714395997, 0.8007623670512665],
];

function near(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

const dated = (values: readonly number[]): DailyClose[] =>
  values.map((close, index) => ({ date: new Date(Date.UTC(2026, 0, 1 + index)).toISOString().slice(0, 10), close }));

test('the series matches the independent reference for 12/26/9 and 5/13/4', () => {
  for (const [periods, expected] of [
    [{ fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 }, expectedDefault],
    [{ fastPeriod: 5, slowPeriod: 13, signalPeriod: 4 }, expectedShort],
  ] as const) {
    const series = macdSeries(closes, periods);
    assert.equal(series.macd.length, closes.length - (periods.slowPeriod + periods.signalPeriod - 2));
    assert.equal(series.macd.length, expected.length);
    expected.forEach(([macd, signal, histogram], index) => {
      near(series.macd[index]!, macd, `macd ${index}`);
      near(series.signal[index]!, signal, `signal ${index}`);
      near(series.histogram[index]!, histogram, `histogram ${index}`);
    });
  }
});

test("the result has the API specification's fields, dates aligned to the closes, and values rounded to 8 decimals", () => {
  const result = computeMacd('TEST', dated(closes), { fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 });
  assert.equal(result.symbol, 'TEST');
  assert.equal(result.timeseries.length, 60 - 33);
  assert.equal(result.timeseries[0]!.date, '2026-02-03');
  assert.equal(result.timeseries.at(-1)!.date, '2026-03-01');
  assert.deepEqual(result.metadata, { current_price: closes.at(-1), start_date: '2026-01-01', end_date: '2026-03-01', data_points: 60 });
  const last = expectedDefault.at(-1)!;
  near(result.current.macd, Math.round(last[0] * 1e8) / 1e8, 'current macd');
  assert.equal(result.current.trend, last[2] > 0 ? 'bullish' : 'bearish');
  assert.deepEqual(Object.keys(result.interpretation).sort(), ['description', 'signal', 'strength']);
});

test('interpretation: crossovers, momentum, weakening and strength', () => {
  // A long rise then a sharp drop turns the histogram negative: a bearish crossover on the day it turns.
  const rising = Array.from({ length: 60 }, (_, index) => 100 + index);
  const find = (series: number[], sign: number): number[] => {
    for (let cut = 40; cut < series.length; cut++) {
      const result = computeMacd('X', dated(series.slice(0, cut)), { fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 });
      if (Math.sign(result.current.histogram) === sign) return series.slice(0, cut);
    }
    throw new Error('no sign change');
  };
  const falling = [...rising, ...Array.from({ length: 30 }, (_, index) => 159 - index * 4)];
  const turned = computeMacd('X', dated(find(falling, -1)), { fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 });
  assert.equal(turned.interpretation.signal, 'bearish_crossover');
  assert.equal(turned.current.trend, 'bearish');
  // An accelerating rise: bullish momentum; the histogram grows with the acceleration.
  const accelerating = Array.from({ length: 80 }, (_, index) => 100 + index * index * 0.05);
  const momentum = computeMacd('X', dated(accelerating), { fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 });
  assert.equal(momentum.interpretation.signal, 'bullish_momentum');
  // An accelerating rise that slows to a steady climb: still above the signal, but the gap narrows.
  const flattening = [...accelerating.slice(0, 60), ...Array.from({ length: 3 }, (_, index) => accelerating[59]! + (index + 1) * 3)];
  const weakening = computeMacd('X', dated(flattening), { fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 });
  assert.ok(weakening.current.histogram > 0);
  assert.equal(weakening.interpretation.signal, 'weakening');
  // Flat prices: no histogram at all.
  const flat = computeMacd('X', dated(new Array<number>(40).fill(50)), { fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 });
  assert.equal(flat.current.trend, 'neutral');
  assert.equal(flat.interpretation.strength, 'weak');
  assert.equal(momentum.interpretation.strength, 'strong');
});

test('input limits name the field and the bound', () => {
  assert.equal(macdInputProblem(90, 12, 26, 9), null);
  assert.equal(macdInputProblem(35, 12, 26, 9), null);
  assert.match(macdInputProblem(34, 12, 26, 9)!, /^days: must be at least 35/);
  assert.match(macdInputProblem(366, 12, 26, 9)!, /^days: must be at most 365/);
  assert.match(macdInputProblem(90, 26, 26, 9)!, /^fast_period: must be less than slow_period/);
  assert.match(macdInputProblem(90, 1, 26, 9)!, /^fast_period: must be at least 2/);
  assert.match(macdInputProblem(90, 12, 201, 9)!, /^slow_period: must be at most 200/);
  assert.match(macdInputProblem(90, 12, 26, 1)!, /^signal_period: must be at least 2/);
  assert.match(macdInputProblem(90.5, 12, 26, 9)!, /^days: must be an integer/);
  assert.match(macdInputProblem(40, 12, 30, 12)!, /^days: must be at least slow_period \+ signal_period - 1 \(= 41\)/);
});
