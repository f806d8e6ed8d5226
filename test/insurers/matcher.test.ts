import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { InsurerIndex, parseRegisterFile, toInsurerObject } from '../../connector/src/insurers/index.js';
import type { InsurerRecord } from '../../connector/src/store/types.js';
import { ZInsurerSchema } from '../../shared/verification.js';

const DATA_DIR = fileURLToPath(new URL('../../connector/data/register/', import.meta.url));
const shipped = (file: string): string => readFileSync(DATA_DIR + file, 'utf8');
const NOW = '2026-03-01T12:00:00.000Z';

function shippedRegister(): InsurerRecord[] {
  return [
    ...parseRegisterFile('eiopa', shipped('eiopa_register_sample.csv'), NOW),
    ...parseRegisterFile('de-vu', shipped('de_motor_insurers_vu_numbers.csv'), NOW),
    ...parseRegisterFile('fr-acam', shipped('fr_insurers_acam_codes.csv'), NOW, {
      claimsIaNamesText: shipped('fr_insurers_claimsia_codes.csv'),
    }),
    ...parseRegisterFile('demo', shipped('uk_demo_insurers.csv'), NOW),
  ];
}

function record(over: Partial<InsurerRecord> & Pick<InsurerRecord, 'reference' | 'name'>): InsurerRecord {
  return {
    country: 'UK',
    scheme: 'fca_frn',
    aliases: [],
    regulated: 'YES',
    authorised: true,
    status_text: 'Authorised',
    kind: 'insurer',
    lei: null,
    source: 'fca-register',
    source_detail: null,
    demo: false,
    priority: 30,
    updated_at: NOW,
    ...over,
  };
}

const index = new InsurerIndex(shippedRegister());
const ref = (country: 'UK' | 'DE' | 'FR', provider: string): string | null => index.match(country, provider)?.record.reference ?? null;

describe('InsurerIndex over the shipped register', () => {
  it('indexes one row per country and reference, the EIOPA row winning over the DE list', () => {
    // 6 EIOPA + 223 DE list - 2 shared numbers (5080, 5096) + 131 FR + 8 UK demo.
    expect(index.size()).toBe(366);
    expect(index.byReference('DE', '5096')?.source).toBe('eiopa-register');
    expect(index.byReference('DE', '0028')?.name).toBe('Admiral Insurance Company Limited (AIC L)');
    expect(index.byReference('UK', 'demo-uk-0007')?.name).toBe('Greyfriars Demo Underwriting Limited');
  });

  it('matches the exact normalised name whatever the case', () => {
    expect(index.match('FR', 'maaf assurances')).toMatchObject({ how: 'exact', score: 1, record: { reference: '11380402' } });
    expect(index.match('FR', 'MAAF ASSURANCES SA')?.record.reference).toBe('11380402');
    expect(index.match('DE', 'hdi global se')).toMatchObject({ how: 'exact', record: { reference: '5096' } });
  });

  it('ignores accents and folds umlaut transliterations', () => {
    expect(index.match('DE', 'Wuerttembergische Gemeinde-Versicherung a.G.')).toMatchObject({
      how: 'exact',
      record: { reference: '5479' },
    });
    expect(index.match('DE', 'Wurttembergische Gemeinde Versicherung')).toMatchObject({ how: 'exact', record: { reference: '5479' } });
    expect(ref('DE', 'NUERNBERGER Beamten Allgemeine Versicherung')).toBe('5686');
    expect(ref('FR', 'Mutuelle d’Assurances du Corps de Santé Français')).toBe('04580404');
  });

  it('treats legal suffixes alike: Ltd/Limited/plc, AG, SE, SA, VVaG, mutuelle', () => {
    expect(index.match('FR', 'Aviva Insurance UK Ltd')).toMatchObject({ how: 'exact', record: { reference: '09320407' } });
    expect(index.match('FR', 'Zurich Insurance')).toMatchObject({ how: 'exact', record: { reference: '83960407' } });
    expect(index.match('UK', 'Seaview Demo Insurance Co. Ltd')).toMatchObject({ how: 'exact', record: { reference: 'DEMO-UK-0008' } });
    expect(index.match('DE', 'Alte Leipziger Versicherung Aktiengesellschaft')).toMatchObject({
      how: 'exact',
      record: { reference: '5405' },
    });
    expect(index.match('DE', 'HDI Global')).toMatchObject({ how: 'exact', record: { reference: '5096' } });
    expect(index.match('FR', 'MAAF Assurances S.A.')).toMatchObject({ how: 'exact', record: { reference: '11380402' } });
    expect(index.match('DE', 'GVV Kommunalversicherung')).toMatchObject({ how: 'exact', record: { reference: '5469' } });
    expect(index.match('FR', 'Mapa Assurance')).toMatchObject({ how: 'exact', record: { reference: '05300405' } });
  });

  it('matches aliases at 0.97', () => {
    expect(index.match('DE', 'HDI-Gerling Industrie Versicherung AG')).toMatchObject({
      how: 'alias',
      score: 0.97,
      record: { reference: '5096' },
    });
    expect(index.match('FR', 'MACIF Rhone Alpes')).toMatchObject({ how: 'alias', record: { reference: '04560404' } });
    expect(index.match('FR', 'Mutuelle Assurance des Instituteurs de France')).toMatchObject({
      how: 'alias',
      record: { reference: '04550404' },
    });
  });

  it('finds the shortest name containing every provider word at 0.9', () => {
    expect(index.match('DE', 'allianz versicherung ag')).toMatchObject({ how: 'tokens', score: 0.9, record: { reference: '5441' } });
    expect(index.match('DE', 'Debeka')).toMatchObject({ how: 'tokens', record: { reference: '5549' } });
    expect(index.match('FR', 'Macif')).toMatchObject({ how: 'tokens', record: { reference: '04560404' } });
  });

  it('does not let generic words alone match', () => {
    expect(index.match('DE', 'Versicherung AG')).toBeNull();
    expect(index.match('FR', 'Assurances')).toBeNull();
  });

  it('accepts small typos, transpositions included', () => {
    const allianz = index.match('DE', 'Allainz Direct');
    expect(allianz).toMatchObject({ how: 'fuzzy', record: { reference: '5441' } });
    expect(allianz?.score).toBeCloseTo(0.831, 3);
    expect(index.match('DE', 'Allainz')).toMatchObject({ how: 'fuzzy', record: { reference: '5441' } });
    expect(index.match('DE', 'Generalli Deutschland')).toMatchObject({
      how: 'fuzzy',
      record: { name: 'Generali Deutschland Versicherung AG' },
    });
    expect(index.match('FR', 'Generalli IARD')).toMatchObject({ how: 'fuzzy', record: { reference: '02280402' } });
    expect(index.match('FR', 'MAAF Asurances')).toMatchObject({ how: 'fuzzy', record: { reference: '11380402' } });
    expect(index.match('FR', 'MAAF Assurances')?.how).toBe('exact');
  });

  it('keeps fuzzy scores below token containment', () => {
    const fuzzy = index.match('FR', 'Generalli IARD');
    expect(fuzzy?.score).toBeLessThan(0.9);
    expect(fuzzy?.score).toBeGreaterThanOrEqual(0.85 * 0.9);
  });

  it('rejects unrelated names', () => {
    expect(index.match('DE', 'Tesla')).toBeNull();
    expect(index.match('DE', 'Totally Unknown Mobility Startup')).toBeNull();
    expect(index.match('FR', 'Banque de Bretagne Nouvelle')).toBeNull();
    expect(index.match('UK', 'Aviva Insurance Ltd.')).toBeNull();
  });

  it('rejects input with fewer than 3 significant characters', () => {
    expect(index.match('DE', 'AG')).toBeNull();
    expect(index.match('DE', 'R+V')).toBeNull();
    expect(index.match('FR', ' .. ')).toBeNull();
    expect(index.match('DE', 'HDI')?.record.reference).toBe('5096');
  });

  it('keeps countries apart', () => {
    expect(index.match('DE', 'HUK-COBURG-Allgemeine Versicherung AG')?.record.reference).toBe('5521');
    expect(index.match('FR', 'HUK-COBURG-Allgemeine Versicherung AG')).toBeNull();
    expect(index.match('UK', 'MAAF Assurances')).toBeNull();
    // HDI Global SE is on both lists, each under its own country's reference.
    expect(index.match('FR', 'HDI Global SE')?.record).toMatchObject({ country: 'FR', reference: '83680407' });
    expect(index.byReference('FR', '5096')).toBeNull();
  });

  it('answers 1,000 calls over the full shipped register with the right rows', () => {
    const cases: Array<['UK' | 'DE' | 'FR', string, string | null]> = [
      ['DE', 'Allainz Direct', '5441'],
      ['DE', 'Tesla', null],
      ['FR', 'maaf assurances', '11380402'],
      ['FR', 'Mutuelle Assurance des Instituteurs de France', '04550404'],
      ['UK', 'Albion Demo Motor', 'DEMO-UK-0001'],
      ['DE', 'Württembergische Gemeinde', '5479'],
      ['FR', 'Generalli IARD', '02280402'],
      ['DE', 'Unknown Name Versicherung', null],
    ];
    let correct = 0;
    for (let i = 0; i < 1000; i++) {
      const [country, provider, expected] = cases[i % cases.length] as ['UK' | 'DE' | 'FR', string, string | null];
      if ((index.match(country, provider)?.record.reference ?? null) === expected) correct++;
    }
    expect(correct).toBe(1000);
  });
});

describe('InsurerIndex preferences', () => {
  it('prefers a real row over a demo row with the same name, in either order', () => {
    const demo = record({
      reference: 'DEMO-UK-0100',
      name: 'Harbour Example Insurance Ltd',
      demo: true,
      priority: 10,
      source: 'demo',
      scheme: 'demo',
    });
    const real = record({ reference: '900100', name: 'Harbour Example Insurance Limited' });
    expect(new InsurerIndex([demo, real]).match('UK', 'Harbour Example Insurance')?.record.reference).toBe('900100');
    expect(new InsurerIndex([real, demo]).match('UK', 'Harbour Example Insurance')?.record.reference).toBe('900100');
  });

  it('prefers a real row when containment finds names of equal length', () => {
    const demo = record({ reference: 'DEMO-UK-0101', name: 'Kestrel Example Motor', demo: true, priority: 10 });
    const real = record({ reference: '900101', name: 'Kestrel Example Cover' });
    expect(new InsurerIndex([demo, real]).match('UK', 'Kestrel Example')).toMatchObject({ how: 'tokens', record: { reference: '900101' } });
  });

  it('prefers higher priority, then the lower reference, among equal names', () => {
    const low = record({ reference: '900201', name: 'Twin Example Insurance', priority: 20 });
    const high = record({ reference: '900202', name: 'Twin Example Insurance', priority: 30 });
    expect(new InsurerIndex([low, high]).match('UK', 'Twin Example Insurance')?.record.reference).toBe('900202');
    const a = record({ reference: '900302', name: 'Same Example Insurance' });
    const b = record({ reference: '900301', name: 'Same Example Insurance' });
    expect(new InsurerIndex([a, b]).match('UK', 'Same Example Insurance')?.record.reference).toBe('900301');
  });

  it('keeps the higher-priority row of a reference, as the store does', () => {
    const list = record({ reference: '900400', name: 'Old Example Name', priority: 20 });
    const register = record({ reference: '900400', name: 'New Example Name', priority: 30 });
    const idx = new InsurerIndex([register, list]);
    expect(idx.size()).toBe(1);
    expect(idx.byReference('UK', '900400')?.name).toBe('New Example Name');
    expect(idx.match('UK', 'Old Example Name')).toBeNull();
  });
});

describe('toInsurerObject', () => {
  it('maps a match to the contract insurer object with a two-decimal score', () => {
    const match = index.match('DE', 'Allainz Direct');
    if (!match) throw new Error('expected a match');
    const obj = toInsurerObject(match);
    expect(obj).toEqual({
      name: 'Allianz Direct Versicherungs-AG',
      reference: '5441',
      regulated: 'YES',
      authorised: true,
      country: 'DE',
      source: 'de-vu-list',
      demo: false,
      register_status: 'listed as a current motor insurer',
      // The company database is searched by name: its pages are keyed by BaFin's own id, not this number.
      register_url:
        'https://portal.mvp.bafin.de/database/InstInfo/sucheForm.do?sucheButtonInstitut=Suche&institutName=Allianz%20Direct%20Versicherungs-AG',
      match_score: 0.83,
    });
    expect(ZInsurerSchema.parse(obj)).toEqual(obj);
  });

  it('leaves match_score out when there is no score, and shows demo rows as demo', () => {
    const row = index.byReference('UK', 'DEMO-UK-0007');
    if (!row) throw new Error('expected the demo row');
    const obj = toInsurerObject({ record: row });
    // A demo row has no register page.
    expect(obj).toEqual({
      name: 'Greyfriars Demo Underwriting Limited',
      reference: 'DEMO-UK-0007',
      regulated: 'YES',
      authorised: false,
      country: 'UK',
      source: 'demo',
      demo: true,
      register_status: 'Not authorised (demo)',
      register_url: null,
    });
    expect('match_score' in obj).toBe(false);
    expect(ZInsurerSchema.parse(obj)).toEqual(obj);
  });
});
