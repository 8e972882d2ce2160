# The sweep's SM->L2 bytes a cell if each block's L1 kept everything it touched in its chunk (the bound a staged
# or perfectly cached block reaches): the unique 32-B sectors of psi that one interior block of the leapfrog's sweep
# reads over a chunk of 8 slices, plus psi^{n-1} read and psi^{n+1} written once, at 64M DOFs, its tile as
# row_tiles() cuts it (cubic in single: pairs), by where the sectors lie (the block's own rows, its x-, y- or z-halo).
#   g++ -std=c++20 -I. dump_faces.cpp build/cpu/lattices/libdecgpe_lattices.a -o dump_faces   (in the repository root)
#   ./dump_faces > faces.txt && python3 l2_model.py faces.txt > l2-model.txt
import collections, math, sys
faces = collections.defaultdict(list)
ms_of = {}
for line in open(sys.argv[1]):
    name, ms, l, nb, dx, dy, dz = line.split()
    ms_of[name] = int(ms)
    faces[name].append((int(l), int(nb), int(dx), int(dy), int(dz)))

def model(name, value_bytes, rows, slices=8, dofs=64e6, threads_per_row=None, side=None):
    ms = ms_of[name]
    s = side or round((dofs / ms) ** (1 / 3))
    sx = sy = sz = s
    tpr = threads_per_row or 256 // rows
    per = 2 if (ms == 1 and value_bytes == 8) else 1   # cubic's pairs
    longest = max(per, min(tpr * per // ms, sx))
    tiles = math.ceil(sx / longest)
    tile = math.ceil(math.ceil(sx / tiles) / per) * per
    # one interior block: x0 in the middle, y0 interior, z0 interior
    x0 = (tiles // 2) * tile; y0 = sy // 2; z0 = sz // 2
    x1 = min(x0 + tile, sx)
    per_sector = 32 // value_bytes
    def idx(x, y, z, l): return ((z * sy + y) * sx + x) * ms + l
    seen = set(); cat = collections.Counter()
    cells = 0
    for z in range(z0, z0 + slices):
        for y in range(y0, y0 + rows):
            for x in range(x0, x1):
                for (l, nb, dx, dy, dz) in faces[name]:
                    sec = idx(x + dx, y + dy, z + dz, nb) // per_sector
                    if sec not in seen:
                        seen.add(sec)
                        kind = 'z-halo' if not (z0 <= z + dz < z0 + slices) else ('y-halo' if not (y0 <= y + dy < y0 + rows) else ('x-halo' if not (x0 <= x + dx < x1) else 'own'))
                        cat[kind] += 1
                for l in range(ms):
                    sec = idx(x, y, z, l) // per_sector
                    if sec not in seen:
                        seen.add(sec); cat['own'] += 1
                cells += ms
    stream = 2 * cells * value_bytes  # psi^{n-1} read, psi^{n+1} written, whole sectors
    total = len(seen) * 32 + stream
    return tile, total / cells, {k: v * 32 / cells for k, v in cat.items()}

for name in ['cubic', 'bcc', 'fcc', 'a15', 'c15', 'z']:
    for vb in (8, 16):
        for rows in (1, 2, 4):
            tile, b, parts = model(name, vb, rows)
            print(f"{name:6} {'single' if vb == 8 else 'double'} rows={rows} tile={tile:4d}  SM->L2 {b:6.1f} B/cell  " +
                  "  ".join(f"{k} {v:5.1f}" for k, v in sorted(parts.items())))
