import { expect } from 'chai';
import { removeTopLevelMember, setTopLevelMember, spliceTopLevelString } from '../../../src/shared/json-splice.ts';

describe('json-splice: setTopLevelMember and removeTopLevelMember', () => {
  it('replaces a top-level value of any type in place, leaving every other byte as it was', () => {
    const text = '{"a": 1.0, "stream_options" : {"x":[1,"}\\""]} ,"seed":9223372036854775807}';
    expect(setTopLevelMember(text, 'stream_options', '{"include_usage":true}')).to.equal(
      '{"a": 1.0, "stream_options" : {"include_usage":true} ,"seed":9223372036854775807}',
    );
    expect(setTopLevelMember('{"s":null,"t":"s"}', 's', 'true')).to.equal('{"s":true,"t":"s"}');
    expect(setTopLevelMember('{"a":{"s":1}}', 's', '2')).to.equal('{"a":{"s":1},"s":2}'); // nested keys are not top-level
  });

  it('appends a missing member after the last one, or into an empty object', () => {
    expect(setTopLevelMember('{"a":1}\n', 'b', '[]')).to.equal('{"a":1,"b":[]}\n');
    expect(setTopLevelMember('{ }', 'b', '1')).to.equal('{"b":1 }');
  });

  it('removes members with exactly the given value, with their comma', () => {
    expect(removeTopLevelMember('{"id":"x","usage":null,"b":2}', 'usage', 'null')).to.equal('{"id":"x","b":2}');
    expect(removeTopLevelMember('{"usage":null,"b":2}', 'usage', 'null')).to.equal('{"b":2}');
    expect(removeTopLevelMember('{"b":2, "usage":null}', 'usage', 'null')).to.equal('{"b":2}');
    expect(removeTopLevelMember('{"usage":null}', 'usage', 'null')).to.equal('{}');
    expect(removeTopLevelMember('{"usage":{"total_tokens":null}}', 'usage', 'null')).to.equal(undefined);
  });

  it('gives up on text that is not one JSON object', () => {
    for (const text of ['[1]', '{"a":tru', '{"a" 1}', '"x"', '{"a":1,}']) {
      expect(setTopLevelMember(text, 'a', '1'), text).to.equal(undefined);
      expect(removeTopLevelMember(text, 'a', '1'), text).to.equal(undefined);
    }
  });

  it('replaces a top-level string member by its key as JSON reads it, escaped or not, and nothing else', () => {
    expect(spliceTopLevelString('{"model":"a","x":{"model":"b"},"models":"c","mode":"d"}', 'model', 'z')).to.equal(
      '{"model":"z","x":{"model":"b"},"models":"c","mode":"d"}',
    );
    expect(spliceTopLevelString('{"mo\\u0064el": "a", "m\\"odel":"b"}', 'model', 'z')).to.equal('{"mo\\u0064el": "z", "m\\"odel":"b"}');
    expect(spliceTopLevelString('{"a\\\\":"b","model":1}', 'model', 'z')).to.equal(undefined); // not a string member
    expect(spliceTopLevelString('{"other":"a"}', 'model', 'z')).to.equal(undefined);
  });
});
