import { describe, it, expect } from 'vitest';
import { nameTokens, normaliseInsurerName } from '../../connector/src/insurers/normalise.js';

describe('normaliseInsurerName', () => {
  it('lower-cases, strips accents and turns punctuation and quotes into single spaces', () => {
    expect(normaliseInsurerName('  "Zürich"  Versicherungs-Gesellschaft, Frankfurt/M. ')).toBe('zurich versicherung frankfurt m');
    expect(normaliseInsurerName('CAISSE D’ASSURANCES MUTUELLES DU CRÉDIT AGRICOLE')).toBe('caisse assurance credit agricole');
  });

  it('folds German umlaut transliterations so all three spellings share a key', () => {
    const key = normaliseInsurerName('Württembergische');
    expect(key).toBe('wurttembergische');
    expect(normaliseInsurerName('Wuerttembergische')).toBe(key);
    expect(normaliseInsurerName('WURTTEMBERGISCHE')).toBe(key);
    expect(normaliseInsurerName('Öffentliche Versicherung')).toBe(normaliseInsurerName('Oeffentliche Versicherung'));
    expect(normaliseInsurerName('Großstädte')).toBe('grossstadte');
  });

  it('drops UK legal forms: Ltd, Limited, plc, the, company', () => {
    expect(normaliseInsurerName('Aviva Insurance UK Ltd.')).toBe('aviva insurance uk');
    expect(normaliseInsurerName('AVIVA INSURANCE UK LIMITED')).toBe('aviva insurance uk');
    expect(normaliseInsurerName('The Zurich Insurance plc')).toBe('zurich insurance');
    expect(normaliseInsurerName('Seaview Demo Insurance Company Limited')).toBe('seaview demo insurance');
  });

  it('drops German legal forms including dotted and spelled-out ones', () => {
    expect(normaliseInsurerName('Allianz Versicherungs-AG')).toBe('allianz versicherung');
    expect(normaliseInsurerName('Allianz Versicherung Aktiengesellschaft')).toBe('allianz versicherung');
    expect(normaliseInsurerName('HDI Global SE')).toBe('hdi global');
    expect(normaliseInsurerName('GVO Gegenseitigkeit Versicherung Oldenburg VVaG')).toBe('gvo gegenseitigkeit versicherung oldenburg');
    expect(normaliseInsurerName('Vereinigte Haftpflichtversicherung V.a .G.')).toBe('vereinigte haftpflichtversicherung');
    expect(normaliseInsurerName('LVM Landwirtschaftlicher Versicherungsverein Münster a.G.')).toBe(
      'lvm landwirtschaftlicher versicherungsverein munster',
    );
    expect(normaliseInsurerName('Concordia Versicherungs-Gesellschaft auf Gegenseitigkeit')).toBe('concordia versicherung');
    expect(normaliseInsurerName('Bayerischer Versicherungsverband Versicherungsaktiengesellschaft')).toBe(
      'bayerischer versicherungsverband versicherung',
    );
  });

  it('drops French legal forms and articles, and folds dotted acronyms', () => {
    expect(normaliseInsurerName('MAAF ASSURANCES SA')).toBe('maaf assurance');
    expect(normaliseInsurerName('Maaf Assurances S.A.')).toBe('maaf assurance');
    expect(normaliseInsurerName('AXA FRANCE I.A.R.D.')).toBe(normaliseInsurerName('AXA France IARD'));
    expect(normaliseInsurerName('MEDICALE DE FRANCE (LA)')).toBe(normaliseInsurerName('La Médicale de France'));
    expect(normaliseInsurerName("MAPA MUTUELLE D'ASSURANCE")).toBe('mapa assurance');
  });

  it('keeps domain words, so the exact key still tells Allianz from Allianz Versicherung', () => {
    expect(normaliseInsurerName('Allianz')).toBe('allianz');
    expect(normaliseInsurerName('Allianz Versicherung')).not.toBe(normaliseInsurerName('Allianz'));
  });

  it('keeps the words when a name is nothing but legal forms', () => {
    expect(normaliseInsurerName('Mutuelle')).toBe('mutulle');
    expect(normaliseInsurerName('AG')).toBe('ag');
    expect(normaliseInsurerName('  --  ')).toBe('');
  });
});

describe('nameTokens', () => {
  it('returns the words of the key in order', () => {
    expect(nameTokens('R+V Allgemeine Versicherung AG')).toEqual(['rv', 'allgemeine', 'versicherung']);
    expect(nameTokens('A&O Autoversicherung Oldenburg AG')).toEqual(['ao', 'autoversicherung', 'oldenburg']);
    expect(nameTokens('')).toEqual([]);
  });
});
