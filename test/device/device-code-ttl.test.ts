/** DEVICE_CODE_TTL (docs/interface.md#configuration): seconds a device code waits, default 600, 60 to 1800. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('DEVICE_CODE_TTL', () => {
  it('defaults to 600 seconds', () => {
    expect(loadConfig({}).deviceCodeTtl).toBe(600);
  });

  it('accepts 60 to 1800', () => {
    expect(loadConfig({ DEVICE_CODE_TTL: '60' }).deviceCodeTtl).toBe(60);
    expect(loadConfig({ DEVICE_CODE_TTL: '1800' }).deviceCodeTtl).toBe(1800);
  });

  it.each(['59', '1801', 'ten'])('refuses %s naming the variable', (value) => {
    expect(() => loadConfig({ DEVICE_CODE_TTL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DEVICE_CODE_TTL: value })).toThrow(/DEVICE_CODE_TTL/);
  });
});
