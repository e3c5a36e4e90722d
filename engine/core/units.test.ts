/** The decimal converter's edges and the market table's checks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Result } from './results.ts';
import { amountToAtoms, buildMarkets, formatAtoms, formatPrice, formatQuantity, formatSteps, parseStep, priceToTicks, quantityToLots, safeProduct, toSteps, newConversion } from './units.ts';
import { loadMarkets } from '../runtime/markets.ts';

const markets = loadMarkets();
const eth = markets.pairBySymbol('ETH')!;
const doge = markets.pairBySymbol('doge/usdc')!;
const usdc = markets.assetBySymbol('usdc')!;

test('the fixture has the required pairs with exact integer arithmetic', () => {
  for (const name of ['ETH/USDC', 'BTC/USDC', 'SOL/USDC', 'DOGE/USDC', 'PLAT/USDC', 'PRED/USDC']) {
    const pair = markets.pairBySymbol(name);
    assert.ok(pair, name);
    assert.ok(Number.isSafeInteger(pair.quoteAtomsPerTickLot) && pair.quoteAtomsPerTickLot >= 1);
    assert.ok(Number.isSafeInteger(pair.baseAtomsPerLot) && pair.baseAtomsPerLot >= 1);
  }
  assert.equal(eth.slug, 'eth');
  assert.equal(eth.quoteAtomsPerTickLot, 1);
  assert.equal(eth.baseAtomsPerLot, 10_000);
  assert.equal(doge.quoteAtomsPerTickLot, 10);
});

test('prices convert exactly to ticks from strings and numbers', () => {
  assert.deepEqual(priceToTicks('3000.01', eth), { code: Result.ok, value: 300_001 });
  assert.deepEqual(priceToTicks('3000.010000', eth), { code: Result.ok, value: 300_001 });
  assert.deepEqual(priceToTicks(3000.01, eth), { code: Result.ok, value: 300_001 });
  assert.deepEqual(priceToTicks('0.01', eth), { code: Result.ok, value: 1 });
  assert.deepEqual(priceToTicks(0.1, doge), { code: Result.ok, value: 10_000 });
  // 0.1 + 0.2 is 0.30000000000000004 as a double: off the grid, never silently rounded.
  assert.equal(priceToTicks(0.1 + 0.2, eth).code, Result.offTick);
  assert.equal(priceToTicks('3000.001', eth).code, Result.offTick);
  assert.deepEqual(priceToTicks(1e-5, doge), { code: Result.ok, value: 1 });
});

test('the converter refuses what is not a plain positive decimal, with a code and no throw', () => {
  const refused: Array<[unknown, number]> = [
    ['', Result.invalidNumber],
    [' 1', Result.invalidNumber],
    ['1e3', Result.invalidNumber],
    ['0x10', Result.invalidNumber],
    ['.5', Result.invalidNumber],
    ['5.', Result.invalidNumber],
    ['+5', Result.invalidNumber],
    ['1,5', Result.invalidNumber],
    ['NaN', Result.invalidNumber],
    [Number.NaN, Result.invalidNumber],
    [Number.POSITIVE_INFINITY, Result.invalidNumber],
    [null, Result.invalidNumber],
    [undefined, Result.invalidNumber],
    [{}, Result.invalidNumber],
    [true, Result.invalidNumber],
    ['1'.repeat(41), Result.invalidNumber],
    ['-1', Result.negativeValue],
    [-0.01, Result.negativeValue],
    ['0', Result.zeroValue],
    ['0.000', Result.zeroValue],
    [0, Result.zeroValue],
    ['-0', Result.zeroValue],
  ];
  for (const [input, code] of refused) {
    assert.equal(priceToTicks(input, eth).code, code, JSON.stringify(input) ?? String(input));
  }
  assert.deepEqual(toSteps('0', parseStep('0.01'), true, Result.offTick, newConversion()), { code: Result.ok, value: 0 });
});

test('values past the safe-integer range or the pair maxima are refused', () => {
  assert.equal(toSteps('9007199254740993', parseStep('1'), false, Result.offLot, newConversion()).code, Result.valueTooLarge);
  assert.deepEqual(toSteps('9007199254740991', parseStep('1'), false, Result.offLot, newConversion()), { code: Result.ok, value: 9007199254740991 });
  assert.equal(toSteps(1e21, parseStep('1'), false, Result.offLot, newConversion()).code, Result.valueTooLarge);
  assert.equal(priceToTicks('1000000.01', eth).code, Result.priceOutOfRange);
  assert.deepEqual(priceToTicks('1000000', eth), { code: Result.ok, value: eth.priceTicksMax });
  assert.equal(quantityToLots('1000.0001', eth).code, Result.quantityOutOfRange);
  assert.equal(safeProduct(2 ** 30, 2 ** 30), 2 ** 60 > Number.MAX_SAFE_INTEGER ? -1 : 2 ** 60);
  assert.equal(safeProduct(3, 5), 15);
  assert.equal(safeProduct(0, Number.MAX_SAFE_INTEGER), 0);
});

test('quantities convert to lots and amounts to atoms', () => {
  assert.deepEqual(quantityToLots('1.5', eth), { code: Result.ok, value: 15_000 });
  assert.equal(quantityToLots('0.00001', eth).code, Result.offLot);
  assert.deepEqual(quantityToLots(3, doge), { code: Result.ok, value: 3 });
  assert.deepEqual(amountToAtoms('12.345678', usdc), { code: Result.ok, value: 12_345_678 });
  assert.equal(amountToAtoms('12.3456789', usdc).code, Result.tooManyDecimals);
});

test('integers format back to decimal strings with the step s decimals', () => {
  assert.equal(formatPrice(300_001, eth), '3000.01');
  assert.equal(formatPrice(300_000, eth), '3000.00');
  assert.equal(formatPrice(1, eth), '0.01');
  assert.equal(formatQuantity(15_000, eth), '1.5000');
  assert.equal(formatQuantity(3, doge), '3');
  assert.equal(formatAtoms(12_345_678, usdc), '12.345678');
  assert.equal(formatAtoms(-5, usdc), '-0.000005');
  assert.equal(formatAtoms(Number.MAX_SAFE_INTEGER, usdc), '9007199254.740991');
  for (const text of ['0.01', '1.23', '999999.99', '3000.00']) {
    assert.equal(formatPrice(priceToTicks(text, eth).value, eth), text);
  }
  // Steps that are not one unit of their last decimal take the exact product.
  assert.equal(formatSteps(7, parseStep('0.05')), '0.35');
  assert.equal(formatSteps(-3, parseStep('25')), '-75');
  assert.equal(formatSteps(Number.MAX_SAFE_INTEGER, parseStep('0.5')), '4503599627370495.5');
});

test('market tables refuse grids that are not whole atoms', () => {
  const assets = [
    { id: 1, symbol: 'USDC', decimals: 6 },
    { id: 2, symbol: 'BTC', decimals: 8 },
  ];
  const pair = { id: 1, base: 'BTC', quote: 'USDC', tick_size: '0.01', lot_size: '0.0001', max_price: '1000000', max_quantity: '1000' };
  assert.equal(buildMarkets({ assets, pairs: [pair] }).pairs.length, 1);
  assert.throws(() => buildMarkets({ assets, pairs: [{ ...pair, lot_size: '0.00001' }] }), /tick × lot/);
  assert.throws(() => buildMarkets({ assets, pairs: [{ ...pair, lot_size: '0.000000001' }] }), /not a whole number/);
  assert.throws(() => buildMarkets({ assets, pairs: [{ ...pair, max_quantity: '100000000' }] }), /overflow/);
  assert.throws(() => buildMarkets({ assets, pairs: [{ ...pair, base: 'DOGE' }] }), /unknown asset/);
  assert.throws(() => parseStep('0'), /invalid step/);
});
