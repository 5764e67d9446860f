#!/usr/bin/env python3
"""The SPE10-shaped deck scaled for weak scaling: TILES copies of it side by side along y.

usage: spe10_scaled.py TILES DAYS OUTDIR [LAYERS]

Reads validation/decks/SPE10.DATA and its property files (validation/gen_spe10.sh writes them)
and writes OUTDIR/SPE10_T<TILES>.DATA with OUTDIR/spe10/*.INC: a 60 x 220·TILES x 85 grid whose
every 220 rows hold the same field, each tile with its own five-spot (an injector in its middle,
producers in its corners, all completed through the 85 layers, the original's controls), and
reports every 50 days up to DAYS. Every GPU of a weak-scaling run then holds one copy of the
same problem; the tiles meet only at their y faces. LAYERS (85 by default) keeps the top layers
only, for a smaller tile (the CPU's runs): the wells are completed through those, and the injectors'
rates are scaled by LAYERS / 85, so each layer takes the water it takes in the whole deck.
"""
import pathlib
import re
import sys

NX, NY, NZ = 60, 220, 85


def tile_include(src, dst, tiles, nz=NZ):
    """An INC file's values (x fastest, then y, then z) with each of the first nz layers' NY rows TILES times."""
    lines = src.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if re.fullmatch(r"(PERM[XYZ]|PORO)", l.strip())) + 1
    values = " ".join(lines[start:]).split()
    assert values[-1] == "/" and len(values) == NX * NY * NZ + 1, src
    layer = NX * NY
    out = [f"-- {src.name} of validation/decks/spe10, each layer's {NY} rows {tiles} times along y "
           "(tools/device/spe10_scaled.py)", lines[start - 1]]
    for k in range(nz):
        rows = [" ".join(values[k * layer + j * NX:k * layer + (j + 1) * NX]) for j in range(NY)]
        out.extend(rows * tiles)
    out.append("/")
    dst.write_text("\n".join(out) + "\n")


def wells(tiles, nz=NZ):
    specs, comps, inj, prod = [], [], [], []
    for t in range(tiles):
        j0 = t * NY
        sites = [("I", 30, j0 + 110, "WATER")] + [
            ("P", i, j0 + j, "OIL") for i, j in ((1, 1), (NX, 1), (1, NY), (NX, NY))]
        for n, (kind, i, j, phase) in enumerate(sites):
            name = f"I{t + 1}" if kind == "I" else f"P{t + 1}_{n}"
            specs.append(f" '{name}' 'G1' {i} {j} 1* '{phase}' /")
            comps.append(f" '{name}' {i} {j} 1 {nz} 'OPEN' 1* 1* 0.254 /")
            if kind == "I":
                inj.append(f" '{name}' 'WATER' 'OPEN' 'RATE' {795.0 * nz / NZ:.4g} 1* 689.5 /")
            else:
                prod.append(f" '{name}' 'OPEN' 'BHP' 5* 275.8 /")
    block = lambda kw, rows: kw + "\n" + "\n".join(rows) + "\n/\n"
    return (block("WELSPECS", specs) + "\n" + block("COMPDAT", comps) + "\n" + block("WCONINJE", inj) + "\n" +
            block("WCONPROD", prod))


def main():
    tiles, days, out = int(sys.argv[1]), int(sys.argv[2]), pathlib.Path(sys.argv[3])
    nz = int(sys.argv[4]) if len(sys.argv) > 4 else NZ
    if tiles < 1 or days < 50 or days % 50 or not 1 <= nz <= NZ:
        sys.exit(f"spe10_scaled.py: {tiles} tiles, {days} days, {nz} layers: tiles from 1, days a multiple of the 50-day "
                 f"report step, layers 1 to {NZ}")
    root = pathlib.Path(__file__).resolve().parents[2] / "validation" / "decks"
    deck = (root / "SPE10.DATA").read_text()
    ny = NY * tiles
    deck = deck.replace(f"DIMENS\n {NX} {NY} {NZ} /", f"DIMENS\n {NX} {ny} {nz} /")
    deck = deck.replace(f"DZV\n {NZ}*0.6096 /", f"DZV\n {nz}*0.6096 /")
    deck = deck.replace(f"DYV\n {NY}*3.048 /", f"DYV\n {ny}*3.048 /")
    deck = deck.replace(f"TOPS\n {NX * NY}*3657.6 /", f"TOPS\n {NX * ny}*3657.6 /")
    deck = deck.replace("WELLDIMS\n 5 85 1 5 /", f"WELLDIMS\n {5 * tiles} {nz} 1 {5 * tiles} /")
    deck = re.sub(r"WELSPECS\n.*?\nWCONPROD\n.*?\n/\n", lambda _: wells(tiles, nz), deck, flags=re.S)
    deck = re.sub(r"TSTEP\n.*?/", f"TSTEP\n {days // 50}*50 /", deck, flags=re.S)
    for key in ("DIMENS\n", "DYV\n", "TOPS\n", "WELLDIMS\n"):
        assert key in deck
    assert deck.count("'P") >= 4 * tiles and f"{ny}*3.048" in deck and f" {NX} {ny} {nz} /" in deck
    assert f"DZV\n {nz}*0.6096 /" in deck
    deck = f"-- SPE10.DATA tiled {tiles} times along y, its top {nz} layers, {days} days (tools/device/spe10_scaled.py)\n" + deck
    (out / "spe10").mkdir(parents=True, exist_ok=True)
    for name in ("PERMX", "PERMY", "PERMZ", "PORO"):
        tile_include(root / "spe10" / f"{name}.INC", out / "spe10" / f"{name}.INC", tiles, nz)
    (out / f"SPE10_T{tiles}.DATA").write_text(deck)
    print(f"wrote {out / f'SPE10_T{tiles}.DATA'}: {NX} x {ny} x {nz} cells, {5 * tiles} wells, {days} days")


if __name__ == "__main__":
    main()
