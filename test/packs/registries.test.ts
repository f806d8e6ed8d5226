/**
 * The country and language registries are complete: what the compiler cannot see (a language a
 * country names but no pack provides, an OCR model with no package, a label kind left empty, an
 * example plate its own reader does not read) fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFormat } from '../../connector/src/verify/format-check.js';
import { inferType } from '../../connector/src/extract/fields/document-fields.js';
import {
  COUNTRIES,
  COUNTRY_PROFILES,
  INSURANCE_TYPES,
  LABEL_KINDS,
  LANGUAGE_PACKS,
  LANGUAGES,
  countryFromInput,
  countryProfile,
  foldInput,
  inputIndex,
  insuranceTypeFromInput,
} from '../../shared/packs/index.js';
import { classifyHeader } from '../../addon/src/mapping.js';
import { CHECK_SOURCES } from '../../shared/verification.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const folded = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

describe('country profiles', () => {
  for (const code of COUNTRIES) {
    const p = countryProfile(code);
    it(`${code}: its code, aliases, languages, regulator and rules are all there`, () => {
      expect(p.code).toBe(code);
      expect(countryFromInput(code.toLowerCase())).toBe(code);
      for (const alias of p.aliases) expect(countryFromInput(alias)).toBe(code);
      expect(p.languages.length).toBeGreaterThan(0);
      for (const l of p.languages) expect(LANGUAGES, `${code} names language ${l}`).toContain(l);
      expect(CHECK_SOURCES).toContain(p.regulator.checkSource);
      expect(p.eiopa.homeCodes.length).toBeGreaterThan(0);
      for (const type of INSURANCE_TYPES) {
        const rule = p.formatRules[type];
        expect(rule, `${code} ${type}`).toBeDefined();
        expect(rule.description.length).toBeGreaterThan(0);
        // The rule admits some number: a pattern that can match nothing would refuse every request.
        const sample = 'A' + '1'.repeat(Math.max(rule.minDigits, 8));
        expect(checkFormat(sample, code, type).ok, `${code} ${type} accepts ${sample}`).toBe(true);
      }
    });
    it(`${code}: its plate reader reads the example its documentation gives`, () => {
      const example = p.plateFormat.split(': ').at(-1)!;
      expect(p.readPlates(`Registration ${example}.`).map((r) => r.plate)).toEqual([example]);
    });
  }
  it('no code, alias, EIOPA home code or register check belongs to two countries', () => {
    const codes = COUNTRIES.flatMap((c) => [c, ...COUNTRY_PROFILES[c].aliases]);
    expect(new Set(codes).size).toBe(codes.length);
    const homes = COUNTRIES.flatMap((c) => COUNTRY_PROFILES[c].eiopa.homeCodes);
    expect(new Set(homes).size).toBe(homes.length);
    const checks = COUNTRIES.map((c) => COUNTRY_PROFILES[c].regulator.checkSource);
    expect(new Set(checks).size).toBe(checks.length);
  });
});

describe('language packs', () => {
  for (const code of LANGUAGES) {
    const pack = LANGUAGE_PACKS[code];
    it(`${code}: months, type words, labels and header words for every kind; its OCR model is an installed package`, () => {
      expect(pack.code).toBe(code);
      expect(pack.months).toHaveLength(12);
      // Matched on folded text: written folded, or they could never match.
      for (const m of [...pack.months, ...Object.keys(pack.monthVariants), ...Object.keys(pack.monthAbbreviations)])
        expect(folded(m), m).toBe(m);
      for (const n of [...Object.values(pack.monthVariants), ...Object.values(pack.monthAbbreviations)])
        expect(n >= 1 && n <= 12).toBe(true);
      for (const type of INSURANCE_TYPES) expect(pack.typeWords[type].words.length, `${code} ${type}`).toBeGreaterThan(0);
      for (const kind of LABEL_KINDS) expect(pack.labels[kind].length, `${code} ${kind} labels`).toBeGreaterThan(0);
      expect(pack.indicatorWords.length).toBeGreaterThan(5);
      expect(
        fs.existsSync(path.join(ROOT, 'node_modules/@tesseract.js-data', pack.tesseract)),
        `@tesseract.js-data/${pack.tesseract}`,
      ).toBe(true);
      expect(
        JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies[`@tesseract.js-data/${pack.tesseract}`],
        'a dependency',
      ).toBeDefined();
    });
    it(`${code}: the add-on finds a policy-number column headed in this language`, () => {
      const header = `${pack.sheetHeaders.policy[0]!.replace('\\w*', '')} ${pack.sheetHeaders.number[0]}`;
      expect(classifyHeader(header), header).toBe('policy_number');
    });
  }
  it('where two packs write a month the same way, they mean the same month (the extractor merges them)', () => {
    const seen = new Map<string, number>();
    for (const code of LANGUAGES) {
      const p = LANGUAGE_PACKS[code];
      const entries: [string, number][] = [
        ...p.months.map((m, i): [string, number] => [m, i + 1]),
        ...Object.entries(p.monthVariants),
        ...Object.entries(p.monthAbbreviations),
      ];
      for (const [word, month] of entries) {
        if (seen.has(word)) expect(seen.get(word), `${code}: ${word}`).toBe(month);
        seen.set(word, month);
      }
    }
  });
  it('every pack names every country and every insurance type as staff type them, and nothing else', () => {
    for (const code of LANGUAGES) {
      const pack = LANGUAGE_PACKS[code];
      expect(Object.keys(pack.countryNames).sort(), `${code} countryNames`).toEqual([...COUNTRIES].sort());
      expect(Object.keys(pack.insuranceTypeWords).sort(), `${code} insuranceTypeWords`).toEqual([...INSURANCE_TYPES].sort());
      for (const c of COUNTRIES) {
        expect(pack.countryNames[c].length, `${code} ${c}`).toBeGreaterThan(0);
        for (const w of pack.countryNames[c]) expect(countryFromInput(w), `${code}: ${w}`).toBe(c);
      }
      for (const t of INSURANCE_TYPES) {
        expect(pack.insuranceTypeWords[t].length, `${code} ${t}`).toBeGreaterThan(0);
        for (const w of pack.insuranceTypeWords[t]) expect(insuranceTypeFromInput(w), `${code}: ${w}`).toBe(t);
      }
    }
  });
  it('no word, folded, names two countries or two insurance types (codes, aliases and every pack together)', () => {
    const clashes = (entries: [string, string][]) => {
      const seen = new Map<string, string>();
      const out: string[] = [];
      for (const [word, value] of entries) {
        const key = foldInput(word);
        expect(key, `"${word}" folds to nothing`).not.toBe('');
        const before = seen.get(key);
        if (before !== undefined && before !== value) out.push(`"${word}" is ${before} and ${value}`);
        seen.set(key, value);
      }
      return out;
    };
    const countryWords = COUNTRIES.flatMap((c) =>
      [c, ...COUNTRY_PROFILES[c].aliases, ...LANGUAGES.flatMap((l) => LANGUAGE_PACKS[l].countryNames[c])].map((w): [string, string] => [
        w,
        c,
      ]),
    );
    const typeWords = INSURANCE_TYPES.flatMap((t) =>
      [t, ...LANGUAGES.flatMap((l) => LANGUAGE_PACKS[l].insuranceTypeWords[t])].map((w): [string, string] => [w, t]),
    );
    expect(clashes(countryWords)).toEqual([]);
    expect(clashes(typeWords)).toEqual([]);
  });
  it('a word that names two values is refused rather than guessed', () => {
    const lookup = inputIndex([
      ['Kfz', 'motor'],
      ['KFZ', 'health'],
      ['Reise', 'travel'],
    ]);
    expect(lookup('kfz')).toBeNull();
    expect(lookup('reise')).toBe('travel');
  });
  it('an insurance-type word a document states is not read as another type by the extractor', () => {
    for (const code of LANGUAGES) {
      for (const t of INSURANCE_TYPES) {
        for (const w of LANGUAGE_PACKS[code].insuranceTypeWords[t])
          expect(inferType([{ text: w, cells: [] }])?.type ?? t, `${code}: ${w}`).toBe(t);
      }
    }
  });
  it("every country document language has a pack, and every pack is some country's language", () => {
    const used = new Set(COUNTRIES.flatMap((c) => COUNTRY_PROFILES[c].languages as readonly string[]));
    expect([...used].sort()).toEqual([...LANGUAGES].sort());
  });
});
