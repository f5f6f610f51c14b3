"""Redis's CRC64 (Jones polynomial, reflected, no initial or final xor),
for payloads and RDB files a test damages and then makes whole again.

Crc64OfCopies gives the CRC of copies of one large file, cut short or with
a few bytes changed, without a pass over each copy (a pass is half a second
a MiB in Python): the CRC is linear over GF(2), so a changed copy's CRC is
the file's XOR the CRC of what differs, whose zero bytes are passed over in
powers of two; a copy cut short starts from the prefix CRCs kept every
4 KiB.
"""


def _table():
    table = []
    for b in range(256):
        c = b
        for _ in range(8):
            c = (c >> 1) ^ (0x95ac9329ac4bc9b5 if c & 1 else 0)
        table.append(c)
    return table


TABLE = _table()


def crc64_update(crc, data):
    for b in data:
        crc = TABLE[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc


def crc64(data):
    return crc64_update(0, data)


def _apply(operator, crc):
    """operator: the images of the 64 bits of a CRC."""
    out, bit = 0, 0
    while crc:
        if crc & 1:
            out ^= operator[bit]
        crc >>= 1
        bit += 1
    return out


class Crc64OfCopies:
    STRIDE = 4096

    def __init__(self, data):
        self.data = data
        self.marks = [0]
        for start in range(0, len(data), self.STRIDE):
            self.marks.append(crc64_update(self.marks[-1], data[start:start + self.STRIDE]))
        self.whole = self.marks[-1]
        # zeros[k]: what 2**k zero bytes do to a CRC.
        self.zeros = [[crc64_update(1 << bit, b"\0") for bit in range(64)]]
        while (1 << len(self.zeros)) <= len(data):
            last = self.zeros[-1]
            self.zeros.append([_apply(last, image) for image in last])

    def _after_zeros(self, crc, count):
        k = 0
        while count:
            if count & 1:
                crc = _apply(self.zeros[k], crc)
            count >>= 1
            k += 1
        return crc

    def prefix(self, n):
        """The CRC of data[:n]."""
        start = n // self.STRIDE * self.STRIDE
        return crc64_update(self.marks[n // self.STRIDE], self.data[start:n])

    def changed(self, copy, positions):
        """The CRC of `copy`, as long as the data and differing from it at
        most at `positions`."""
        diff, at = 0, None
        for p in sorted(set(positions)):
            if at is not None:
                diff = self._after_zeros(diff, p - at - 1)
            diff = crc64_update(diff, bytes([self.data[p] ^ copy[p]]))
            at = p
        if at is not None:
            diff = self._after_zeros(diff, len(self.data) - at - 1)
        return self.whole ^ diff
