import { expect } from 'chai';
import { csvCell } from '../../../src/shared/csv.ts';
import { exportFormat } from '../../../src/http/export-format.ts';

describe('usage export: cells and format', () => {
  it('quotes CSV cells as RFC 4180 says, and keeps a spreadsheet from running a cell as a formula', () => {
    expect(csvCell('sandbox/claude-haiku')).to.equal('sandbox/claude-haiku');
    expect(csvCell('a,b')).to.equal('"a,b"');
    expect(csvCell('say "hi"\r\n')).to.equal('"say ""hi""\r\n"');
    expect(csvCell('=HYPERLINK("x")')).to.equal(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('@cmd')).to.equal("'@cmd");
    expect(csvCell('-0.500000')).to.equal('-0.500000'); // a number stays a number
    expect(csvCell(null)).to.equal('');
    expect(csvCell(false)).to.equal('false');
    expect(csvCell(42)).to.equal('42');
  });

  it('takes format= first, then Accept (NDJSON only when asked), CSV by default', () => {
    expect(exportFormat({ format: 'ndjson' }, 'text/csv')).to.equal('ndjson');
    expect(exportFormat({ format: 'csv' }, 'application/x-ndjson')).to.equal('csv');
    expect(exportFormat({}, 'application/x-ndjson')).to.equal('ndjson');
    expect(exportFormat({}, ['text/plain', 'application/ndjson;q=0.5'])).to.equal('ndjson');
    expect(exportFormat({}, '*/*')).to.equal('csv');
    expect(exportFormat({}, undefined)).to.equal('csv');
  });
});
