/* dlc_image.c - ImageDecoder for compiled models: JPEG (libjpeg-turbo), PNG (libpng), WebP
 * (libwebp), TIFF (libtiff), JPEG 2000 (OpenJPEG), BMP and binary PNM decoded into 8-bit
 * RGB, BGR or grayscale pixels that live in the run's arena. Grayscale from color uses
 * PIL's luma, (R*19595 + G*38470 + B*7471 + 0x8000) >> 16, which ONNX's reference uses. */
#include "dlc_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

/* A decoded image: height x width x channels bytes follow the header. */
typedef struct {
  int64_t height, width, channels;
  unsigned char pixels[];
} dlc_image_t;

/* RGB (or gray, channels 1) pixels being built by a decoder, in malloc'd memory. */
typedef struct {
  int64_t height, width, channels;
  unsigned char *pixels;
  char why[160]; /* set on failure */
} dlc_decoded_t;

static bool dlc_decoded_alloc(dlc_decoded_t *d, int64_t height, int64_t width, int64_t channels) {
  size_t n;
  if (height <= 0 || width <= 0 || height > (1 << 20) || width > (1 << 20) ||
      __builtin_mul_overflow((size_t)height * (size_t)width, (size_t)channels, &n) ||
      n > ((size_t)1 << 34) || !(d->pixels = malloc(n))) {
    snprintf(d->why, sizeof(d->why), "cannot hold a %lldx%lld image", (long long)width,
             (long long)height);
    return false;
  }
  d->height = height;
  d->width = width;
  d->channels = channels;
  return true;
}

/* ---- JPEG ---------------------------------------------------------------- */

typedef struct {
  struct jpeg_error_mgr base;
  jmp_buf env;
} dlc_jpeg_error_t;

static void dlc_jpeg_exit(j_common_ptr info) {
  longjmp(((dlc_jpeg_error_t *)info->err)->env, 1);
}
static void dlc_jpeg_silent(j_common_ptr info, int level) { (void)info, (void)level; }

static bool dlc_decode_jpeg(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  struct jpeg_decompress_struct info;
  dlc_jpeg_error_t err;
  info.err = jpeg_std_error(&err.base);
  err.base.error_exit = dlc_jpeg_exit;
  err.base.emit_message = dlc_jpeg_silent;
  if (setjmp(err.env)) {
    char text[JMSG_LENGTH_MAX];
    err.base.format_message((j_common_ptr)&info, text);
    snprintf(d->why, sizeof(d->why), "JPEG: %s", text);
    jpeg_destroy_decompress(&info);
    free(d->pixels);
    d->pixels = NULL;
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, p, (unsigned long)n);
  jpeg_read_header(&info, TRUE);
  bool gray = info.jpeg_color_space == JCS_GRAYSCALE;
  info.out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&info);
  if (!dlc_decoded_alloc(d, info.output_height, info.output_width, gray ? 1 : 3)) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = d->pixels + (size_t)info.output_scanline * (size_t)d->width * (size_t)d->channels;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

/* ---- PNG ----------------------------------------------------------------- */

static bool dlc_decode_png(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  png_image image;
  memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, p, n)) {
    snprintf(d->why, sizeof(d->why), "PNG: %s", image.message);
    return false;
  }
  bool gray = !(image.format & PNG_FORMAT_FLAG_COLOR);
  image.format = gray ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  if (!dlc_decoded_alloc(d, image.height, image.width, gray ? 1 : 3)) {
    png_image_free(&image);
    return false;
  }
  if (!png_image_finish_read(&image, NULL, d->pixels, 0, NULL)) {
    snprintf(d->why, sizeof(d->why), "PNG: %s", image.message);
    png_image_free(&image);
    return false;
  }
  return true;
}

/* ---- WebP ---------------------------------------------------------------- */

static bool dlc_decode_webp(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  int w = 0, h = 0;
  uint8_t *rgb = WebPDecodeRGB(p, n, &w, &h);
  if (!rgb) {
    snprintf(d->why, sizeof(d->why), "WebP: not a WebP image it can decode");
    return false;
  }
  bool ok = dlc_decoded_alloc(d, h, w, 3);
  if (ok)
    memcpy(d->pixels, rgb, (size_t)w * (size_t)h * 3);
  WebPFree(rgb);
  return ok;
}

/* ---- TIFF (read from memory through client procs) --------------------------- */

typedef struct {
  const unsigned char *p;
  size_t n, at;
} dlc_memfile_t;

static tsize_t dlc_tiff_read(thandle_t h, tdata_t buf, tsize_t size) {
  dlc_memfile_t *m = (dlc_memfile_t *)h;
  size_t k = m->at < m->n ? m->n - m->at : 0;
  if ((size_t)size < k)
    k = (size_t)size;
  memcpy(buf, m->p + m->at, k);
  m->at += k;
  return (tsize_t)k;
}
static tsize_t dlc_tiff_write(thandle_t h, tdata_t buf, tsize_t size) {
  (void)h, (void)buf, (void)size;
  return 0;
}
static toff_t dlc_tiff_seek(thandle_t h, toff_t off, int whence) {
  dlc_memfile_t *m = (dlc_memfile_t *)h;
  uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->at : m->n;
  m->at = (size_t)(base + off);
  return (toff_t)m->at;
}
static int dlc_tiff_close(thandle_t h) { (void)h; return 0; }
static toff_t dlc_tiff_size(thandle_t h) { return (toff_t)((dlc_memfile_t *)h)->n; }
static int dlc_tiff_map(thandle_t h, tdata_t *base, toff_t *size) {
  (void)h, (void)base, (void)size;
  return 0;
}
static void dlc_tiff_unmap(thandle_t h, tdata_t base, toff_t size) { (void)h, (void)base, (void)size; }

static bool dlc_decode_tiff(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  TIFFSetErrorHandler(NULL);
  TIFFSetWarningHandler(NULL);
  dlc_memfile_t m = {p, n, 0};
  TIFF *tif = TIFFClientOpen("image", "rm", (thandle_t)&m, dlc_tiff_read, dlc_tiff_write,
                             dlc_tiff_seek, dlc_tiff_close, dlc_tiff_size, dlc_tiff_map,
                             dlc_tiff_unmap);
  if (!tif) {
    snprintf(d->why, sizeof(d->why), "TIFF: not a TIFF image it can decode");
    return false;
  }
  uint32_t w = 0, h = 0;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
  uint32_t *raster = NULL;
  bool ok = w && h && (size_t)w * h < ((size_t)1 << 30) &&
            (raster = _TIFFmalloc((tmsize_t)((size_t)w * h * sizeof(uint32_t)))) &&
            TIFFReadRGBAImageOriented(tif, w, h, raster, ORIENTATION_TOPLEFT, 0) &&
            dlc_decoded_alloc(d, h, w, 3);
  if (ok)
    for (size_t i = 0; i < (size_t)w * h; ++i) {
      d->pixels[3 * i] = (unsigned char)TIFFGetR(raster[i]);
      d->pixels[3 * i + 1] = (unsigned char)TIFFGetG(raster[i]);
      d->pixels[3 * i + 2] = (unsigned char)TIFFGetB(raster[i]);
    }
  else if (!d->why[0])
    snprintf(d->why, sizeof(d->why), "TIFF: cannot read its pixels");
  if (raster)
    _TIFFfree(raster);
  TIFFClose(tif);
  return ok;
}

/* ---- JPEG 2000 ------------------------------------------------------------- */

static OPJ_SIZE_T dlc_opj_read(void *buf, OPJ_SIZE_T size, void *user) {
  dlc_memfile_t *m = user;
  size_t k = m->at < m->n ? m->n - m->at : 0;
  if (k == 0)
    return (OPJ_SIZE_T)-1;
  if (size < k)
    k = size;
  memcpy(buf, m->p + m->at, k);
  m->at += k;
  return k;
}
static OPJ_OFF_T dlc_opj_skip(OPJ_OFF_T off, void *user) {
  dlc_memfile_t *m = user;
  if (off < 0 || (size_t)off > m->n - m->at)
    return -1;
  m->at += (size_t)off;
  return off;
}
static OPJ_BOOL dlc_opj_seek(OPJ_OFF_T off, void *user) {
  dlc_memfile_t *m = user;
  if (off < 0 || (size_t)off > m->n)
    return OPJ_FALSE;
  m->at = (size_t)off;
  return OPJ_TRUE;
}

static bool dlc_decode_jp2(const unsigned char *p, size_t n, bool jp2, dlc_decoded_t *d) {
  dlc_memfile_t m = {p, n, 0};
  opj_stream_t *stream = opj_stream_create(1 << 16, OPJ_TRUE);
  opj_codec_t *codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_image_t *image = NULL;
  bool ok = false;
  if (stream && codec) {
    opj_stream_set_user_data(stream, &m, NULL);
    opj_stream_set_user_data_length(stream, n);
    opj_stream_set_read_function(stream, dlc_opj_read);
    opj_stream_set_skip_function(stream, dlc_opj_skip);
    opj_stream_set_seek_function(stream, dlc_opj_seek);
    opj_dparameters_t params;
    opj_set_default_decoder_parameters(&params);
    ok = opj_setup_decoder(codec, &params) && opj_read_header(stream, codec, &image) &&
         opj_decode(codec, stream, image) && opj_end_decompress(codec, stream);
  }
  unsigned nc = ok ? image->numcomps : 0;
  ok = ok && (nc == 1 || nc >= 3);
  for (unsigned c = 0; ok && c < (nc == 1 ? 1u : 3u); ++c)
    ok = image->comps[c].dx == 1 && image->comps[c].dy == 1 && image->comps[c].prec <= 8 &&
         !image->comps[c].sgnd && image->comps[c].w == image->comps[0].w &&
         image->comps[c].h == image->comps[0].h;
  if (ok)
    ok = dlc_decoded_alloc(d, image->comps[0].h, image->comps[0].w, nc == 1 ? 1 : 3);
  if (ok)
    for (size_t i = 0; i < (size_t)d->height * (size_t)d->width; ++i)
      for (int c = 0; c < d->channels; ++c)
        d->pixels[i * (size_t)d->channels + (size_t)c] = (unsigned char)image->comps[c].data[i];
  else if (!d->why[0])
    snprintf(d->why, sizeof(d->why), "JPEG 2000: not an 8-bit image it can decode");
  if (image)
    opj_image_destroy(image);
  if (codec)
    opj_destroy_codec(codec);
  if (stream)
    opj_stream_destroy(stream);
  return ok;
}

/* ---- BMP (uncompressed 24- and 32-bit, 8-bit with a palette) ------------------ */

static uint32_t dlc_le(const unsigned char *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

static bool dlc_decode_bmp(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  if (n < 54) {
    snprintf(d->why, sizeof(d->why), "BMP: truncated header");
    return false;
  }
  uint32_t offset = dlc_le(p + 10, 4), header = dlc_le(p + 14, 4);
  int32_t w = (int32_t)dlc_le(p + 18, 4), h = (int32_t)dlc_le(p + 22, 4);
  uint32_t bpp = dlc_le(p + 28, 2), compression = dlc_le(p + 30, 4);
  bool topDown = h < 0;
  int64_t height = topDown ? -(int64_t)h : h;
  if (header < 40 || (compression != 0 && !(compression == 3 && bpp == 32)) ||
      (bpp != 24 && bpp != 32 && bpp != 8) || w <= 0 || height <= 0) {
    snprintf(d->why, sizeof(d->why), "BMP: only uncompressed 8-, 24- and 32-bit images are supported");
    return false;
  }
  size_t stride = (((size_t)w * bpp + 31) / 32) * 4;
  if (offset > n || stride * (size_t)height > n - offset) {
    snprintf(d->why, sizeof(d->why), "BMP: truncated pixel data");
    return false;
  }
  const unsigned char *palette = p + 14 + header;
  if (bpp == 8 && (size_t)(palette - p) + 1024 > offset) {
    uint32_t colors = dlc_le(p + 46, 4);
    if (!colors || (size_t)(palette - p) + 4 * (size_t)colors > offset) {
      snprintf(d->why, sizeof(d->why), "BMP: truncated palette");
      return false;
    }
  }
  if (!dlc_decoded_alloc(d, height, w, 3))
    return false;
  for (int64_t y = 0; y < height; ++y) {
    const unsigned char *row = p + offset + stride * (size_t)(topDown ? y : height - 1 - y);
    unsigned char *out = d->pixels + (size_t)y * (size_t)w * 3;
    for (int32_t x = 0; x < w; ++x) {
      const unsigned char *bgr = bpp == 8 ? palette + 4 * (size_t)row[x] : row + (size_t)x * (bpp / 8);
      out[3 * x] = bgr[2];
      out[3 * x + 1] = bgr[1];
      out[3 * x + 2] = bgr[0];
    }
  }
  return true;
}

/* ---- PNM (binary P5 gray and P6 color, maxval up to 255) --------------------- */

static bool dlc_pnm_number(const unsigned char *p, size_t n, size_t *i, long *v) {
  for (;;) { /* whitespace and # comments */
    while (*i < n && (p[*i] == ' ' || (p[*i] >= 9 && p[*i] <= 13)))
      ++*i;
    if (*i < n && p[*i] == '#')
      while (*i < n && p[*i] != '\n')
        ++*i;
    else
      break;
  }
  if (*i >= n || p[*i] < '0' || p[*i] > '9')
    return false;
  *v = 0;
  while (*i < n && p[*i] >= '0' && p[*i] <= '9' && *v < (1L << 24))
    *v = *v * 10 + (p[(*i)++] - '0');
  return true;
}

static bool dlc_decode_pnm(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  size_t i = 2;
  long w, h, maxval;
  bool color = p[1] == '6';
  if (!dlc_pnm_number(p, n, &i, &w) || !dlc_pnm_number(p, n, &i, &h) ||
      !dlc_pnm_number(p, n, &i, &maxval) || maxval < 1 || maxval > 255 || i >= n) {
    snprintf(d->why, sizeof(d->why), "PNM: malformed header (binary P5/P6 with maxval <= 255)");
    return false;
  }
  ++i; /* the one whitespace byte before the data */
  if (!dlc_decoded_alloc(d, h, w, color ? 3 : 1))
    return false;
  size_t bytes = (size_t)w * (size_t)h * (color ? 3 : 1);
  if (i > n || n - i < bytes) {
    snprintf(d->why, sizeof(d->why), "PNM: truncated pixel data");
    return false;
  }
  for (size_t k = 0; k < bytes; ++k) /* scaled to 0..255 as PIL does */
    d->pixels[k] = (unsigned char)((p[i + k] * 255 + maxval / 2) / maxval);
  return true;
}

/* ---- dispatch and the functions compiled code calls ------------------------- */

static bool dlc_decode_any(const unsigned char *p, size_t n, dlc_decoded_t *d) {
  if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
    return dlc_decode_jpeg(p, n, d);
  if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
    return dlc_decode_png(p, n, d);
  if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
    return dlc_decode_webp(p, n, d);
  if (n >= 4 && (memcmp(p, "II*\0", 4) == 0 || memcmp(p, "MM\0*", 4) == 0))
    return dlc_decode_tiff(p, n, d);
  if (n >= 12 && memcmp(p, "\0\0\0\x0cjP  \r\n\x87\n", 12) == 0)
    return dlc_decode_jp2(p, n, true, d);
  if (n >= 4 && memcmp(p, "\xff\x4f\xff\x51", 4) == 0)
    return dlc_decode_jp2(p, n, false, d);
  if (n >= 2 && p[0] == 'B' && p[1] == 'M')
    return dlc_decode_bmp(p, n, d);
  if (n >= 2 && p[0] == 'P' && (p[1] == '5' || p[1] == '6'))
    return dlc_decode_pnm(p, n, d);
  snprintf(d->why, sizeof(d->why),
           "not a JPEG, PNG, WebP, TIFF, JPEG 2000, BMP or binary PNM image");
  return false;
}

int64_t dlc_rt_image_decode(int64_t data, int64_t size, int64_t format, dlc_abi_string_t node) {
  dlc_decoded_t d;
  memset(&d, 0, sizeof(d));
  bool ok = size > 0 && dlc_decode_any((const unsigned char *)(uintptr_t)data, (size_t)size, &d);
  if (!ok && size <= 0)
    snprintf(d.why, sizeof(d.why), "the encoded image is empty");
  int64_t channels = format == 2 ? 1 : 3;
  dlc_image_t *image = NULL;
  if (ok) {
    size_t pixels = (size_t)d.height * (size_t)d.width;
    image = dlc_run_alloc(sizeof(dlc_image_t) + pixels * (size_t)channels);
    if (image) {
      image->height = d.height;
      image->width = d.width;
      image->channels = channels;
      for (size_t i = 0; i < pixels; ++i) {
        const unsigned char *s = d.pixels + i * (size_t)d.channels;
        unsigned char *o = image->pixels + i * (size_t)channels;
        unsigned char r = s[0], g = d.channels == 3 ? s[1] : s[0], b = d.channels == 3 ? s[2] : s[0];
        if (format == 2)
          o[0] = d.channels == 1 ? s[0]
                                 : (unsigned char)((r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16);
        else if (format == 1)
          o[0] = b, o[1] = g, o[2] = r;
        else
          o[0] = r, o[1] = g, o[2] = b;
      }
    }
  }
  free(d.pixels);
  if (!ok) {
    size_t len = (size_t)(uint64_t)(node >> 64);
    dlc_run_fail("node '%.*s' (ImageDecoder): cannot decode the image: %s", (int)len,
                 (const char *)(uintptr_t)(uint64_t)node, d.why);
    /* The run goes on to its end on a 1x1 black image (its outputs are discarded): no
     * empty buffers along the way. */
    if ((image = dlc_run_alloc(sizeof(dlc_image_t) + (size_t)channels))) {
      image->height = image->width = 1;
      image->channels = channels;
      memset(image->pixels, 0, (size_t)channels);
    }
  }
  return (int64_t)(uintptr_t)image;
}

int64_t dlc_rt_image_dim(int64_t image, int64_t k) {
  const dlc_image_t *i = (const dlc_image_t *)(uintptr_t)image;
  if (!i)
    return 0;
  return k == 0 ? i->height : k == 1 ? i->width : i->channels;
}

int32_t dlc_rt_image_byte(int64_t image, int64_t index) {
  const dlc_image_t *i = (const dlc_image_t *)(uintptr_t)image;
  return i ? i->pixels[index] : 0;
}
