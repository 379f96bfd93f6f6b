#!/usr/bin/env python3
"""Generates special_ref.txt: float64 reference values from mpmath (50 digits)
for the chlo package's special-function tests. Each line:
  name x_re x_im y_re y_im        (hex float64 bits; real functions use x_re, y_re)
Run: python3 gen_special.py > special_ref.txt
"""
import random, struct
import mpmath as mp

mp.mp.dps = 50
rnd = random.Random(20261129)

def bits(f):
    return struct.unpack('<Q', struct.pack('<d', float(f)))[0]

def f64(x):
    return float(x)

def pts_real(lo, hi, n):
    return [rnd.uniform(lo, hi) for _ in range(n)]

def pts_complex(n, scale):
    out = []
    for _ in range(n):
        out.append(complex(rnd.gauss(0, scale), rnd.gauss(0, scale)))
    return out

def emit_real(name, fn, xs):
    for x in xs:
        try:
            y = fn(mp.mpf(x))
        except (ValueError, ZeroDivisionError):
            continue
        if isinstance(y, mp.mpc):
            continue
        y = f64(y)
        print(name, '%016x' % bits(x), '0', '%016x' % bits(y), '0')

def emit_complex(name, fn, zs):
    for z in zs:
        w = fn(mp.mpc(z.real, z.imag))
        print(name, '%016x' % bits(z.real), '%016x' % bits(z.imag),
              '%016x' % bits(f64(w.real)), '%016x' % bits(f64(w.imag)))

def i1e(x):
    return mp.besseli(1, x) * mp.exp(-abs(x))

emit_real('digamma', mp.digamma, pts_real(0.01, 30, 60) + pts_real(-20, 0, 40) + [1e-5, 0.5, 2.5, 1e3, 123.456])
emit_real('erfinv', mp.erfinv, pts_real(-1, 1, 60) + [1 - 2**-30, -(1 - 2**-40), 1e-10, 0.999999, 0.5, 1 - 1e-15])
emit_real('besseli1e', i1e, pts_real(-40, 40, 80) + [1e-8, 0.1, 24.9, 25.1, 100.5, 700.0, -3.3])
emit_real('sinh', mp.sinh, pts_real(-30, 30, 40) + pts_real(-1, 1, 20) + [1e-9, 0.3466, 21.9, 22.1, 710.0])
emit_real('cosh', mp.cosh, pts_real(-30, 30, 40) + pts_real(-1, 1, 20) + [1e-9, 0.3466, 21.9, 710.0])
emit_real('asin', mp.asin, pts_real(-1, 1, 40) + [1 - 2**-40, -0.9999999, 0.5000001])
emit_real('acos', mp.acos, pts_real(-1, 1, 40) + [1 - 2**-40, -0.9999999, 0.5000001])
emit_real('zeta2', lambda x: mp.zeta(x, 2.5), pts_real(1.01, 20, 30))
emit_real('zetaq', lambda q: mp.zeta(3.0, q), pts_real(0.01, 20, 30))
emit_real('trigamma', lambda x: mp.polygamma(1, x), pts_real(0.05, 20, 30))

zs = pts_complex(60, 3) + pts_complex(30, 0.7) + pts_complex(10, 1e3)
zs += [complex(1, 1e-9), complex(0.9999, 1e-3), complex(-2, 1e-12), complex(1e-10, 1e-10),
       complex(0.5, 0.5), complex(0.99, 0.14), complex(1e20, 3), complex(-0.3, 2e5)]
emit_complex('casin', mp.asin, zs)
emit_complex('cacos', mp.acos, zs)
emit_complex('casinh', mp.asinh, zs)
emit_complex('cacosh', mp.acosh, zs)
emit_complex('catan', mp.atan, zs)
emit_complex('catanh', mp.atanh, zs)
small = pts_complex(60, 3)
emit_complex('csinh', mp.sinh, small)
emit_complex('ccosh', mp.cosh, small)
emit_complex('ctan', mp.tan, small)
