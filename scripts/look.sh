#!/bin/sh
# make look: render every workbook under reports/ through LibreOffice to PDF
# and PNG (one per page, reports/NAME/look/) for a person to look at.  Not
# part of make test: LibreOffice is large (apt-get install
# libreoffice-calc-nogui poppler-utils).
set -u
if ! command -v soffice >/dev/null 2>&1 || ! command -v pdftoppm >/dev/null 2>&1; then
    echo "look.sh: needs soffice and pdftoppm: apt-get install libreoffice-calc-nogui poppler-utils" >&2
    exit 2
fi
status=0
found=0
for book in reports/*/*.xlsx; do
    [ -f "$book" ] || continue
    found=1
    dir=$(dirname "$book")/look
    mkdir -p "$dir"
    rm -f "$dir"/page-*.png
    if ! timeout 600 soffice --headless --convert-to pdf --outdir "$dir" "$book" >/dev/null 2>&1; then
        echo "look.sh: LibreOffice could not convert $book" >&2
        status=1
        continue
    fi
    pdf=$dir/$(basename "$book" .xlsx).pdf
    pdftoppm -r 60 -png "$pdf" "$dir/page"
    echo "$book: $(ls "$dir"/page-*.png | wc -l) pages in $dir"
done
if [ $found -eq 0 ]; then
    echo "look.sh: no workbook under reports/ (run make report first)" >&2
    exit 2
fi
exit $status
