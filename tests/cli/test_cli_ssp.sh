#!/usr/bin/env bash
# SSP 1.0 packages from the command line: `cosima run model.ssp`, a scenario naming one with "ssp",
# --set on an imported package, errors that name the connector, and no unpacked package left behind.
#   test_cli_ssp.sh COSIMA FMU_DIR
set -u
cosima=$1
fmus=$2
source "$(dirname "$0")/../support/check.sh"
cd "$work" || exit 1
mkdir -p pkg/resources
cp "$fmus/b3_prey.fmu" pkg/resources/prey.fmu
cp "$fmus/b3_predator.fmu" pkg/resources/predator.fmu
cat > pkg/SystemStructure.ssd <<'SSD'
<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" version="1.0" name="B3 from the command line">
  <ssd:System name="root">
    <ssd:Elements>
      <ssd:Component name="prey" source="resources/prey.fmu">
        <ssd:Connectors>
          <ssd:Connector name="q" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="p" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="predator" source="resources/predator.fmu">
        <ssd:Connectors>
          <ssd:Connector name="p" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="q" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="prey" startConnector="p" endElement="predator" endConnector="p"/>
      <ssd:Connection startElement="predator" startConnector="q" endElement="prey" endConnector="q"/>
    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="org.cosima.scenario"><![CDATA[{"method": {"type": "jacobi", "dt": 0.01}}]]></ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
SSD
(cd pkg && zip -q -r ../b3.ssp SystemStructure.ssd resources)
check run-ssp 0 "macro-steps 100" -- "$cosima" run b3.ssp --out ssp.csv
check run-ssp-set 0 "macro-steps 50" -- "$cosima" run b3.ssp --set stop=0.5 --set systems.prey.parameters.alpha=0.5
cp b3.ssp model.zip  # a zip is recognised without the extension
check run-zip 0 "macro-steps 100" -- "$cosima" run model.zip
echo '{"ssp": "b3.ssp", "method": {"dt": 0.02}}' > on_top.json
check run-json-on-ssp 0 "macro-steps 50" -- "$cosima" run on_top.json
sed 's/endElement="predator" endConnector="p"/endElement="predator" endConnector="x"/' pkg/SystemStructure.ssd > bad.ssd
(mkdir -p bad && cp -r pkg/resources bad/ && cp bad.ssd bad/SystemStructure.ssd && cd bad && zip -q -r ../bad.ssp SystemStructure.ssd resources)
check unknown-connector 1 "names connector 'x' of component 'predator'" -- "$cosima" run bad.ssp
check missing-ssp 1 "cannot open SSP 'nothere.ssp'" -- "$cosima" run nothere.ssp
if [ -n "$(ls -A "$TMPDIR")" ]; then echo "FAIL temporary files left: $(ls "$TMPDIR")"; failures=$((failures + 1)); fi
echo "cli.ssp: $failures failure(s)"
[ "$failures" -eq 0 ]
