import { causeChain } from './causes';

describe('causeChain', () => {
  it('yields an error and its causes, outermost first', () => {
    const inner = { code: '57P01' };
    const outer = new Error('wrapped', { cause: new Error('middle', { cause: inner }) });
    expect([...causeChain(outer)].map((e) => e.message ?? e.code)).toEqual(['wrapped', 'middle', '57P01']);
  });

  it('stops five deep, so a cycle of causes ends', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.cause = { name: 'b', cause: a };
    expect([...causeChain(a)].map((e) => e.name)).toEqual(['a', 'b', 'a', 'b', 'a']);
    expect([...causeChain(undefined)]).toEqual([]);
  });
});
