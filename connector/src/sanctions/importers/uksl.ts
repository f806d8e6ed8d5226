/** Importer for the UK Sanctions List (FCDO) in its XML form: the UK's one sanctions list since 28 January 2026. */
import type { ParsedSanctionsList } from './listing.js';
import { checkSize, ListingCollector } from './listing.js';
import { childText, descendantsNamed, readXmlRecords } from './xml.js';

/*
 * Published by the FCDO at https://www.gov.uk/government/publications/the-uk-sanctions-list (the XML file
 * linked there). It replaced OFSI's consolidated list (ofsi.ts) for every UK designation.
 *
 * Shape, as OpenSanctions' crawler reads it (opensanctions/opensanctions, datasets/gb/fcdo_sanctions/crawler.py
 * and gb_fcdo_sanctions.yml): a <Designations> root (with a <DateGenerated>) holding one <Designation> per
 * listing, with UniqueID (the FCDO's reference, e.g. "RUS0123"), IndividualEntityShip ("Individual", "Entity"
 * or "Ship"), Names/Name elements each holding Name1 ... Name6 and a NameType ("Primary Name", "Primary name
 * variation", "Alias"), NonLatinNames holding NameNonLatinScript, RegimeName, DateDesignated, LastUpdated,
 * OFSIGroupID (the listing's Group ID on the old OFSI list) and details by type. Names are found at any
 * depth under the designation, so one more wrapping level would not lose them.
 */

const LIST = 'uk-fcdo';
const WHAT = 'UK Sanctions List XML';
const NAME_PARTS = ['Name1', 'Name2', 'Name3', 'Name4', 'Name5', 'Name6'];

/** Parses the UK Sanctions List XML. Throws when it is not that document or an entity lacks its UniqueID. */
export function parseUkSanctionsListXml(text: string): ParsedSanctionsList {
  checkSize(text, WHAT);
  const collector = new ListingCollector(LIST);
  let index = 0;
  const header = readXmlRecords(text, { what: WHAT, roots: ['Designations'], record: 'Designation' }, (designation) => {
    index += 1;
    const type = childText(designation, 'IndividualEntityShip');
    const reference = childText(designation, 'UniqueID');
    if (type.toLowerCase() !== 'entity') {
      collector.skip(type, reference || `#${index}`);
      return;
    }
    if (!reference) throw new Error(`${WHAT}: <Designation> number ${index}: an entity without a UniqueID`);
    for (const name of descendantsNamed(designation, 'Name')) {
      // A <Name> holds its parts; a childless <Name> would be a whole name written out.
      const whole =
        name.children.length > 0
          ? NAME_PARTS.map((p) => childText(name, p))
              .filter(Boolean)
              .join(' ')
          : name.text;
      collector.addName(reference, whole);
    }
    for (const nonLatin of descendantsNamed(designation, 'NameNonLatinScript')) collector.addName(reference, nonLatin.text);
  });
  return collector.result(WHAT, header.fields.DateGenerated || null);
}
