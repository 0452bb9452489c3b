import { splitHostPort } from './hostPort';

describe('splitHostPort', () => {
  it('splits a host name, an IPv4 and a bracketed IPv6 address from the port', () => {
    expect(splitHostPort('localhost:9464')).toEqual({ host: 'localhost', port: 9464 });
    expect(splitHostPort('0.0.0.0:9465')).toEqual({ host: '0.0.0.0', port: 9465 });
    expect(splitHostPort('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
  });
});
